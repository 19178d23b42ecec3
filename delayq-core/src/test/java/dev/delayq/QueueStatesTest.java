package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.testkit.RedisExtension;
import dev.delayq.testkit.Resp;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The scheduled jobs split into ready (due now), delayed (due later) and retrying (failed, waiting for a retry still
 * to come) by stats.lua, on a plain queue and on one of three partitions: every change that moves a retrying job
 * (fail, reschedule, cancel, delete, claim once due) keeps the three figures adding up to scheduled.
 */
class QueueStatesTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private TestSupport t;
    private DelayQ dq;
    private Resp raw;

    @BeforeEach
    void open() {
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
        dq = t.client();
        raw = REDIS.server().connect();
    }

    @AfterEach
    void close() throws IOException {
        raw.close();
        t.close();
    }

    private static void assertStates(QueueStats s, long ready, long delayed, long retrying) {
        assertThat(List.of(s.ready(), s.delayed(), s.retrying())).as("ready, delayed, retrying")
                .containsExactly(ready, delayed, retrying);
        assertThat(s.ready() + s.delayed() + s.retrying()).isEqualTo(s.scheduled());
    }

    /** The jobs each of the three states lists (ready and delayed in due order, retrying in retry order), as counted. */
    private static void assertListed(QueueInspector in, List<String> ready, List<String> delayed, List<String> retrying) {
        assertThat(in.stream(ScheduledState.READY).map(JobInfo::id).toList()).as("ready")
                .containsExactlyInAnyOrderElementsOf(ready);
        assertThat(in.stream(ScheduledState.DELAYED).map(JobInfo::id).toList()).as("delayed").containsExactlyElementsOf(delayed);
        assertThat(in.stream(ScheduledState.RETRYING).map(JobInfo::id).toList()).as("retrying")
                .containsExactlyElementsOf(retrying);
        assertThat(in.list(ScheduledState.READY, 1, 2, 0)).as("a page of ready").hasSize(Math.min(2, ready.size() - 1));
        assertThat(in.list(ScheduledState.DELAYED, 0, 1, 0)).extracting(JobInfo::id).containsExactly(delayed.get(0));
        QueueStats s = in.stats();
        assertThat(List.of((long) ready.size(), (long) delayed.size(), (long) retrying.size()))
                .containsExactly(s.ready(), s.delayed(), s.retrying());
    }

    /** Claims the one due job, which must be {@code id}, and fails it with {@code backoff}. */
    private static void failOnly(JobQueue q, String id, Duration backoff) {
        List<ClaimedJob> got = q.leases().claim(ClaimOptions.of(1, Duration.ofSeconds(30))).jobs();
        assertThat(got).extracting(ClaimedJob::id).containsExactly(id);
        assertThat(q.leases().fail(got.get(0).lease(), "boom", true, backoff).outcome())
                .isEqualTo(FailResult.Outcome.RETRY_SCHEDULED);
    }

    @ParameterizedTest(name = "partitions {0}")
    @ValueSource(ints = {1, 3})
    void scheduledJobsAreSplitIntoReadyDelayedAndRetrying(int partitions) {
        JobQueue q = t.queue(dq, "states" + partitions, partitions);
        QueueInspector in = q.inspector();
        assertStates(in.stats(), 0, 0, 0);

        q.enqueue(Job.builder().id("flaky").build());
        failOnly(q, "flaky", Duration.ofHours(1));
        q.enqueue(Job.builder().id("quick").build());
        failOnly(q, "quick", Duration.ZERO); // a retry due at once is ready
        assertStates(in.stats(), 1, 0, 1);

        q.enqueue(Job.builder().id("now1").build());
        q.enqueue(Job.builder().id("now2").build());
        q.enqueue(Job.builder().id("later").delay(Duration.ofHours(1)).build());
        q.enqueue(Job.builder().id("urgent").priority(5).build());
        q.enqueue(Job.builder().id("urgent-later").priority(5).delay(Duration.ofHours(2)).build());
        QueueStats s = in.stats();
        assertThat(s.scheduled()).isEqualTo(7);
        assertStates(s, 4, 2, 1);
        assertListed(in, List.of("quick", "now1", "now2", "urgent"), List.of("later", "urgent-later"), List.of("flaky"));

        // Moved by an operator, a retry stays retrying at its new time; moved to now it is ready.
        assertThat(in.reschedule("flaky", Duration.ofHours(3)).changed()).isTrue();
        assertStates(in.stats(), 4, 2, 1);
        assertThat(in.reschedule("flaky", Duration.ZERO).changed()).isTrue();
        assertStates(in.stats(), 5, 2, 0);

        // A cancelled or deleted retry leaves no retrying count behind, not even once a job with its id is back.
        List<ClaimedJob> all = q.leases().claim(ClaimOptions.of(10, Duration.ofSeconds(30))).jobs();
        assertThat(all).hasSize(5);
        for (ClaimedJob j : all) {
            q.leases().fail(j.lease(), "boom", true, Duration.ofHours(1));
        }
        assertStates(in.stats(), 0, 2, 5);
        assertThat(in.cancel("flaky").changed()).isTrue();
        assertThat(in.delete("quick").changed()).isTrue();
        assertStates(in.stats(), 0, 2, 3);
        q.enqueue(Job.builder().id("flaky").delay(Duration.ofHours(1)).build());
        assertStates(in.stats(), 0, 3, 3);

        // The retrying key lives with its partition's keys (one hash tag per partition).
        long entries = 0;
        for (int i = 0; i < partitions; i++) {
            String tag = partitions > 1 ? "states" + partitions + "#" + i : "states" + partitions;
            entries += (Long) call("ZCARD", REDIS.prefix() + ":{" + tag + "}:retrying");
        }
        assertThat(entries).isEqualTo(3);
        assertThat(in.check().problems()).isEmpty();
    }

    @ParameterizedTest(name = "partitions {0}")
    @ValueSource(ints = {1, 3})
    void aRetryWhoseTimeHasComeIsReadyAndClaimedAsAnyOther(int partitions) {
        JobQueue q = t.queue(dq, "due" + partitions, partitions);
        QueueInspector in = q.inspector();
        q.enqueue(Job.builder().id("soon").build());
        failOnly(q, "soon", Duration.ofMillis(300));
        assertStates(in.stats(), 0, 0, 1);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> in.stats().retrying() == 0);
        assertStates(in.stats(), 1, 0, 0);
        List<ClaimedJob> got = q.leases().claim(ClaimOptions.of(1, Duration.ofSeconds(30))).jobs();
        assertThat(got).extracting(ClaimedJob::id).containsExactly("soon");
        assertStates(in.stats(), 0, 0, 0);
        // Its past retrying entry does not count once the job is done.
        assertThat(q.leases().complete(got.get(0).lease())).isEqualTo(Ack.OK);
        assertStates(in.stats(), 0, 0, 0);
    }

    @org.junit.jupiter.api.Test
    void checkReportsARetryingEntryThatItsJobDoesNotAccountFor() {
        JobQueue q = t.queue(dq, "checked");
        q.enqueue(Job.builder().id("moved").build());
        failOnly(q, "moved", Duration.ofHours(1));
        String key = REDIS.prefix() + ":{checked}:retrying";
        long future = System.currentTimeMillis() + 7_200_000L;
        call("ZADD", key, String.valueOf(future), "ghost"); // no such job
        call("ZADD", key, String.valueOf(future), "moved"); // its due time is an hour earlier
        assertThat(q.inspector().check().problems()).containsExactlyInAnyOrder(
                "ghost: in the retrying index without a (readable) record",
                "moved: in the retrying index at " + future + " but due at "
                        + q.inspector().get("moved").orElseThrow().dueAtMillis());
        call("ZREM", key, "ghost");
        assertThat(in(q).reschedule("moved", Duration.ofHours(1)).changed()).isTrue(); // moves its entry along
        assertThat(q.inspector().check().problems()).isEmpty();
        assertStates(q.inspector().stats(), 0, 0, 1);
    }

    private static QueueInspector in(JobQueue q) {
        return q.inspector();
    }

    private Object call(String... args) {
        try {
            return raw.callRaw(args);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
