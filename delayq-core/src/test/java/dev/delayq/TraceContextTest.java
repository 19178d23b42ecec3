package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.delayq.internal.present.JobFields;
import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A job carries its producer's W3C trace context (Job.Builder#traceContext) through every state change that keeps its
 * payload, to the claim, the handler's JobContext and the inspector; a job without one is stored exactly as before.
 */
class TraceContextTest {
    static final String TP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    static final String TS = "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7";

    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private TestSupport t;
    private DelayQ dq;
    private JobQueue q;
    private String jobs;

    @BeforeEach
    void open() {
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
        dq = t.client();
        q = t.queue(dq, "tc");
        jobs = REDIS.prefix() + ":{tc}:jobs";
    }

    @AfterEach
    void close() {
        t.close();
    }

    /** The first byte of job {@code id}'s stored record (its flags), and its length. */
    private List<?> recordHead(String id) {
        return (List<?>) REDIS.server().call("EVAL", "local r = redis.call('HGET', KEYS[1], ARGV[1]) return { string.byte(r, 1), #r }",
                "1", jobs, id);
    }

    @Test
    void theBuilderRefusesMalformedContextsSayingWhatIsAllowed() {
        assertThatThrownBy(() -> Job.builder().traceContext("00-abc-def-01", null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("traceparent '00-abc-def-01'")
                .hasMessageContaining("00-<32 hex digits trace id>-<16 hex digits span id>-<2 hex digits flags>");
        assertThatThrownBy(() -> Job.builder().traceContext(TP.toUpperCase(), null)).hasMessageContaining("lower case");
        assertThatThrownBy(() -> Job.builder().traceContext("00-00000000000000000000000000000000-00f067aa0ba902b7-01", null))
                .hasMessageContaining("all-zero");
        assertThatThrownBy(() -> Job.builder().traceContext(TP, "a=" + "b".repeat(511)))
                .hasMessageContaining("tracestate is 513 characters long: a job carries at most 512");
        assertThatThrownBy(() -> Job.builder().traceContext(TP, "a=\u00e9")).hasMessageContaining("printable ASCII");
        assertThatThrownBy(() -> Job.builder().traceContext(null, TS)).hasMessageContaining("without a traceparent");
        Job job = Job.builder().traceContext(TP, "").build();
        assertThat(job.traceparent()).isEqualTo(TP);
        assertThat(job.tracestate()).as("an empty tracestate is none").isNull();
        assertThat(Job.of("x").traceparent()).isNull();
        assertThat(Job.builder().traceContext(TP, TS).traceContext(null, null).build().traceparent()).isNull();
    }

    @Test
    void aJobWithoutContextIsStoredAsBeforeAndOneWithContextCarriesIt() {
        q.enqueueAll(List.of(Job.builder().id("plain").payload("x").build(),
                Job.builder().id("traced").payload("x").traceContext(TP, TS).build(),
                Job.builder().id("traced-no-state").payload("x").traceContext(TP, null).build(),
                Job.builder().id("traced-all").name("mail").payload("x").priority(3).maxAttempts(4).timeout(Duration.ofSeconds(9))
                        .dedupe("k", Duration.ofMinutes(1)).traceContext(TP, TS).build()));
        // A fresh job without options: flags "scheduled + created", no extension fields, nothing else written.
        assertThat(recordHead("plain").get(0)).isEqualTo(65L);
        assertThat((Long) recordHead("traced").get(1)).isGreaterThan((Long) recordHead("plain").get(1) + TP.length());

        assertThat(q.get("plain").orElseThrow().traceparent()).isNull();
        assertThat(JobFields.job(q.get("plain").orElseThrow(), 100)).doesNotContainKeys("traceparent", "tracestate");
        JobInfo traced = q.get("traced").orElseThrow();
        assertThat(traced.traceparent()).isEqualTo(TP);
        assertThat(traced.tracestate()).isEqualTo(TS);
        assertThat(JobFields.job(traced, 100)).containsEntry("traceparent", TP).containsEntry("tracestate", TS);
        assertThat(q.get("traced-no-state").orElseThrow().tracestate()).isNull();
        assertThat(JobFields.job(q.get("traced-no-state").orElseThrow(), 100)).containsEntry("traceparent", TP)
                .doesNotContainKey("tracestate");
        JobInfo all = q.get("traced-all").orElseThrow();
        assertThat(all.name()).isEqualTo("mail");
        assertThat(all.priority()).isEqualTo(3);
        assertThat(all.maxAttempts()).isEqualTo(4);
        assertThat(all.dedupeKey()).isEqualTo("k");
        assertThat(all.traceparent()).isEqualTo(TP);
        assertThat(all.tracestate()).isEqualTo(TS);

        // A duplicate (same id, or same dedupe key) leaves the first job's context as it was.
        assertThat(q.enqueue(Job.builder().id("plain").traceContext(TP, TS).build()).created()).isFalse();
        assertThat(q.get("plain").orElseThrow().traceparent()).isNull();
        assertThat(q.enqueue(Job.builder().id("other").dedupe("k", Duration.ofMinutes(1)).build()).created()).isFalse();
        assertThat(q.get("traced-all").orElseThrow().traceparent()).isEqualTo(TP);

        List<ClaimedJob> claimed = q.leases().claim(ClaimOptions.of(10, Duration.ofMinutes(1))).jobs();
        assertThat(claimed).hasSize(4);
        for (ClaimedJob c : claimed) {
            assertThat(c.traceparent()).as(c.id()).isEqualTo(c.id().equals("plain") ? null : TP);
            assertThat(c.tracestate()).as(c.id()).isEqualTo(c.id().startsWith("traced") && !c.id().equals("traced-no-state") ? TS : null);
            assertThat(c.name()).as(c.id()).isEqualTo(c.id().equals("traced-all") ? "mail" : null);
            assertThat(c.timeoutMillis()).as(c.id()).isEqualTo(c.id().equals("traced-all") ? 9000 : 0);
            assertThat(q.get(c.id()).orElseThrow().traceparent()).as("%s while leased", c.id())
                    .isEqualTo(c.id().equals("plain") ? null : TP);
        }
    }

    @Test
    void retriesRescheduleDeadAndRetryOfDeadKeepTheContext() {
        // One short record (leased in place) and one long (leased by an overlay): both paths keep the context.
        for (String id : List.of("short", "long")) {
            q.enqueue(Job.builder().id(id).payload(id.equals("long") ? "p".repeat(400) : "p").maxAttempts(2)
                    .traceContext(TP, TS).build());
        }
        q.reschedule("short", Duration.ZERO);
        for (int attempt = 1; attempt <= 2; attempt++) {
            List<ClaimedJob> claimed = claimAll(2);
            for (ClaimedJob c : claimed) {
                assertThat(c.attempt()).isEqualTo(attempt);
                assertThat(c.traceparent()).as("%s attempt %d", c.id(), attempt).isEqualTo(TP);
                assertThat(c.tracestate()).isEqualTo(TS);
                q.leases().fail(c.lease(), "boom", true, Duration.ZERO);
            }
        }
        for (String id : List.of("short", "long")) {
            JobInfo dead = q.get(id).orElseThrow();
            assertThat(dead.state()).isEqualTo(JobState.DEAD);
            assertThat(dead.traceparent()).as("%s dead", id).isEqualTo(TP);
            assertThat(q.inspector().retryDead(id).changed()).isTrue();
            assertThat(q.get(id).orElseThrow().tracestate()).as("%s retried from dead", id).isEqualTo(TS);
        }
        for (ClaimedJob c : claimAll(2)) {
            assertThat(c.traceparent()).as("%s after retry of dead", c.id()).isEqualTo(TP);
            assertThat(q.leases().complete(c.lease())).isEqualTo(Ack.OK);
            assertThat(q.get(c.id()).orElseThrow().traceparent()).as("%s done", c.id()).isEqualTo(TP);
        }
    }

    private List<ClaimedJob> claimAll(int n) {
        List<ClaimedJob> got = new java.util.ArrayList<>();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            got.addAll(q.leases().claim(ClaimOptions.of(n, Duration.ofMinutes(1))).jobs());
            return got.size() >= n;
        });
        return got;
    }

    @Test
    void theHandlerSeesTheContextItsJobCarries() {
        Map<String, String> seen = new ConcurrentHashMap<>();
        try (Worker w = Worker.builder(q, ctx -> seen.put(ctx.id(), ctx.traceparent() + " " + ctx.tracestate())).build().start()) {
            q.enqueue(Job.builder().id("a").traceContext(TP, TS).build());
            q.enqueue(Job.builder().id("b").build());
            await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 2);
        }
        assertThat(seen).containsEntry("a", TP + " " + TS).containsEntry("b", "null null");
    }
}
