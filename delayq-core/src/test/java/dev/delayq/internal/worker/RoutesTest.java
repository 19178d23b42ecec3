package dev.delayq.internal.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.ClaimedJob;
import dev.delayq.JobContext;
import dev.delayq.PayloadCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which handler runs a job: the one of its name, else the default one; a payload its codec cannot read is undecodable. */
class RoutesTest {
    private final List<String> ran = new ArrayList<>();

    private static void run(Routes routes, String name) throws Exception {
        routes.find(name).run(withPayload(""));
    }

    private static Running withPayload(String payload) {
        return new Running("q", new ClaimedJob("j1", payload.getBytes(StandardCharsets.UTF_8), 1, 3, 0, 1, 0, null, 0, "n",
                0, 0), 0, (lease, text) -> null);
    }

    @Test
    void theHandlerOfAJobsNameElseTheDefaultOne() throws Exception {
        Routes routes = new Routes.Builder().add("a", ctx -> ran.add("a")).add("b", ctx -> ran.add("b"))
                .fallback(ctx -> ran.add("default")).build();
        run(routes, "a");
        run(routes, "b");
        run(routes, "c");
        run(routes, null);
        assertThat(ran).containsExactly("a", "b", "default", "default");
    }

    @Test
    void withoutADefaultAnUncoveredNameHasNoRouteAndAMessageThatNamesTheCoveredOnes() {
        Routes routes = new Routes.Builder().add("a", ctx -> { }).add("b", ctx -> { }).build();
        assertThat(routes.find("c")).isNull();
        assertThat(routes.find(null)).isNull();
        assertThat(routes.missing("c")).isEqualTo("no handler for job name 'c' (this worker handles: a, b)");
        assertThat(routes.missing(null)).isEqualTo("no handler for jobs without a name (this worker handles: a, b)");
    }

    @Test
    void oneHandlerPerNameAndAtLeastOneHandler() {
        assertThatThrownBy(() -> new Routes.Builder().add("a", ctx -> { }).add("a", ctx -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("job name 'a' has a handler already");
        assertThatThrownBy(() -> new Routes.Builder().build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("the worker has no handler");
    }

    @Test
    void aTypedHandlerGetsItsPayloadDecodedAndAnUndecodablePayloadIsReportedAsSuch() throws Exception {
        PayloadCodec<Integer> codec = new PayloadCodec<>() {
            @Override
            public byte[] encode(Integer value) {
                return value.toString().getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public Integer decode(byte[] bytes) {
                return Integer.parseInt(new String(bytes, StandardCharsets.UTF_8));
            }
        };
        Routes routes = new Routes.Builder().add("n", codec, (JobContext ctx, Integer n) -> ran.add("n=" + n)).build();
        routes.find("n").run(withPayload("42"));
        assertThat(ran).containsExactly("n=42");
        assertThatThrownBy(() -> routes.find("n").run(withPayload("forty-two")))
                .isInstanceOf(Routes.Undecodable.class).hasMessageStartingWith("payload cannot be decoded: ");
    }
}
