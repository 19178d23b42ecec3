package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.testkit.RedisExtension;
import dev.delayq.testkit.Resp;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link QueueInspector#flowIds(String, int)} ({@code flow_ids.lua}): a waiting job's parents with their states, a
 * parent's first waiting children in enqueue order and their count; a read that writes nothing.
 */
class FlowIdsTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private TestSupport t;
    private JobQueue q;
    private Resp raw;

    @BeforeEach
    void open() {
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
        q = t.queue(t.client(), "fi");
        raw = REDIS.server().connect();
    }

    @AfterEach
    void close() throws IOException {
        raw.close();
        t.close();
    }

    /** Every key of the prefix with its content's digest: what a read must leave as it was. */
    private Set<String> snapshot() throws IOException {
        Set<String> out = new TreeSet<>();
        for (Object k : (List<?>) raw.callRaw("KEYS", REDIS.prefix() + ":*")) {
            String key = new String((byte[]) k, StandardCharsets.UTF_8);
            Object dump = raw.callRaw("DUMP", key);
            out.add(key + "=" + java.util.Arrays.hashCode((byte[]) dump));
        }
        return out;
    }

    private static FlowIds.Linked linked(String id, JobState state) {
        return new FlowIds.Linked(id, state);
    }

    @Test
    void aWaitingJobListsItsParentsWithTheirStatesAndAParentItsChildren() throws IOException {
        q.enqueue(Job.builder().id("p1").build());
        q.enqueue(Job.builder().id("p2").delay(Duration.ofHours(1)).build());
        q.enqueue(Job.builder().id("c1").after("p1", "p2").build());
        q.enqueue(Job.builder().id("c2").after("p1").build());
        ClaimedJob p1 = q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1))).jobs().get(0);
        assertThat(p1.id()).isEqualTo("p1");

        Set<String> before = snapshot();
        FlowIds c1 = q.inspector().flowIds("c1", 20).orElseThrow();
        assertThat(c1.parents()).containsExactly(linked("p1", JobState.PROCESSING), linked("p2", JobState.SCHEDULED));
        assertThat(c1.children()).isEmpty();
        assertThat(c1.waitingChildren()).isZero();
        FlowIds parent = q.inspector().flowIds("p1", 20).orElseThrow();
        assertThat(parent.parents()).isEmpty();
        assertThat(parent.children()).containsExactly(linked("c1", JobState.WAITING), linked("c2", JobState.WAITING));
        assertThat(parent.waitingChildren()).isEqualTo(2);
        assertThat(q.inspector().flowIds("p1", 1).orElseThrow().children()).containsExactly(linked("c1", JobState.WAITING));
        assertThat(q.inspector().flowIds("p1", 0).orElseThrow().children()).isEmpty();
        assertThat(q.inspector().flowIds("nope", 20)).isEmpty();
        assertThat(snapshot()).as("flow_ids writes nothing").isEqualTo(before);

        // p1 done: c2 is released (no links left), c1 still waits for p2 and lists p1 as done.
        q.leases().complete(p1.lease());
        assertThat(q.inspector().flowIds("c1", 20).orElseThrow().parents())
                .containsExactly(linked("p1", JobState.DONE), linked("p2", JobState.SCHEDULED));
        assertThat(q.inspector().flowIds("c2", 20)).hasValue(new FlowIds(List.of(), List.of(), 0));
        assertThat(q.inspector().flowIds("p1", 20).orElseThrow().waitingChildren()).isZero();
        // A parent deleted from under a waiting child (its child goes dead with it): no state for a job that is gone.
        q.enqueue(Job.builder().id("p3").delay(Duration.ofHours(1)).build());
        q.enqueue(Job.builder().id("c3").after("p3", "p2").onParentDead(OnParentDead.IGNORE).build());
        q.inspector().delete("p3");
        assertThat(q.inspector().flowIds("c3", 20).orElseThrow().parents())
                .containsExactly(linked("p3", null), linked("p2", JobState.SCHEDULED));
    }

    @Test
    void aParentWithManyChildrenListsTheFirstOnesInEnqueueOrderAndCountsThemAll() {
        q.enqueue(Job.builder().id("root").delay(Duration.ofHours(1)).build());
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 1_050; i++) {
            ids.add(String.format("kid-%04d", i));
        }
        List<Job> kids = ids.stream().map(id -> Job.builder().id(id).after("root").build()).toList();
        q.enqueueAll(kids);
        FlowIds small = q.inspector().flowIds("root", 5).orElseThrow();
        assertThat(small.waitingChildren()).isEqualTo(1_050);
        assertThat(small.children()).hasSize(5).allMatch(l -> l.state() == JobState.WAITING);
        // More than 1,000 children: a bounded scan, so the listed ones are some of them, in enqueue order.
        List<String> listed = small.children().stream().map(FlowIds.Linked::id).toList();
        assertThat(ids).containsAll(listed);
        assertThat(listed).isSorted();
        FlowIds most = q.inspector().flowIds("root", 1_000).orElseThrow();
        assertThat(most.children()).hasSize(1_000).extracting(FlowIds.Linked::id).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void theChildrenBoundIsCheckedAtTheApi() {
        assertThatThrownBy(() -> q.inspector().flowIds("x", 1_001)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1001");
        assertThatThrownBy(() -> q.inspector().flowIds("x", -1)).isInstanceOf(IllegalArgumentException.class);
    }
}
