package dev.delayq.internal.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.ClaimOptions;
import dev.delayq.ClaimedJob;
import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.QueueStats;
import dev.delayq.WorkerMetrics;
import dev.delayq.internal.queue.RedisQueue;
import dev.delayq.internal.queue.Partition;
import dev.delayq.testkit.RedisClusterExtension;
import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The retention purge keeps up with a busy queue: one pass removes everything past retention however large the
 * backlog, step by bounded step, holding the purge lock while it goes on and releasing it when it ends; stats count the
 * jobs kept past retention meanwhile. On a plain queue, a partitioned one and both on a cluster.
 */
class MaintenanceTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();
    @RegisterExtension
    static final RedisClusterExtension CLUSTER = new RedisClusterExtension();

    private static final Duration RETENTION = Duration.ofMillis(1);

    private static DelayQ single() {
        return DelayQ.builder().redis(REDIS.server().uri()).prefix(REDIS.prefix()).doneRetention(RETENTION)
                .deadRetention(RETENTION).build();
    }

    private static DelayQ cluster() {
        return DelayQ.builder().redis(CLUSTER.cluster().uri()).cluster(true).prefix(CLUSTER.prefix())
                .doneRetention(RETENTION).deadRetention(RETENTION).build();
    }

    private static List<Partition> parts(JobQueue q) {
        return RedisQueue.of(q).partitions();
    }

    /** {@code n} jobs done (a few dead), completed in calls of up to 1,000 as workers complete them. */
    private static void finish(JobQueue q, int n) {
        for (int from = 0; from < n; from += 1000) {
            List<Job> jobs = new ArrayList<>();
            for (int i = from; i < Math.min(n, from + 1000); i++) {
                jobs.add(Job.builder().id("j" + i).build());
            }
            q.enqueueAll(jobs);
            int left = jobs.size();
            while (left > 0) {
                List<ClaimedJob> got = q.leases().claim(ClaimOptions.of(left, Duration.ofMinutes(5))).jobs();
                assertThat(got).isNotEmpty();
                List<ClaimedJob> done = got.subList(0, got.size() - 1);
                q.leases().completeAllAsync(done.stream().map(ClaimedJob::lease).toList()).join();
                ClaimedJob last = got.get(got.size() - 1);
                q.leases().fail(last.lease(), "poison", false, Duration.ZERO);
                left -= got.size();
            }
        }
    }

    /** Waits until every job that has ended is past its 1 ms of retention (one that ended in this very ms is not yet). */
    private static void pastRetention(DelayQ dq) {
        java.time.Instant ended = dq.serverTime();
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1))
                .until(() -> dq.serverTime().isAfter(ended.plusMillis(2)));
    }

    /** The purge locks of the prefix of {@code q}'s client. */
    private static List<String> locks(JobQueue q) {
        Partition p = parts(q).get(0);
        return p.backend().keys(p.keys().prefix() + ":*lock:purge");
    }

    private static void awaitPastRetention(JobQueue q, long kept) {
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5))
                .until(() -> q.inspector().stats().pastRetention() == kept);
    }

    private static void onePassRemovesTheWholeBacklog(DelayQ dq, JobQueue q, int jobs, int step) {
        try (dq) {
            finish(q, jobs);
            pastRetention(dq);
            QueueStats before = q.inspector().stats();
            assertThat(before.done() + before.dead()).isEqualTo(jobs);
            assertThat(before.pastRetention()).as("no pass has recorded the retention yet").isEqualTo(-1);

            Maintenance m = new Maintenance(QueuePartition.of(parts(q)), Duration.ofMinutes(5), WorkerMetrics.NONE, "w1", step);
            m.run();
            QueueStats after = q.inspector().stats();
            assertThat(after.done() + after.dead()).as("jobs left after one pass over %d", jobs).isZero();
            assertThat(after.pastRetention()).isZero();
            assertThat(locks(q)).as("the lock, released when the pass ended").isEmpty();

            // Jobs that end later are counted past retention until the next pass.
            finish(q, 25);
            awaitPastRetention(q, 25);
            m.run();
            assertThat(q.inspector().stats().done() + q.inspector().stats().dead()).isZero();
        }
    }

    @Test
    void onePassRemovesABacklogOfMoreThanAHundredThousandJobs() {
        DelayQ dq = single();
        // A pass used to stop after 100 steps of 1,000 jobs.
        onePassRemovesTheWholeBacklog(dq, dq.queue("busy"), 101_500, dev.delayq.internal.ops.Purge.STEP);
    }

    @Test
    void onePassRemovesTheWholeBacklogOfAPlainQueueInSmallSteps() {
        DelayQ dq = single();
        onePassRemovesTheWholeBacklog(dq, dq.queue("plain"), 1_500, 10);
    }

    @Test
    void onePassRemovesTheWholeBacklogOfEveryPartition() {
        DelayQ dq = single();
        onePassRemovesTheWholeBacklog(dq, dq.queue("parts", 3), 4_500, 10);
    }

    @Test
    void onePassRemovesTheWholeBacklogOnACluster() {
        DelayQ dq = cluster();
        onePassRemovesTheWholeBacklog(dq, dq.queue("cq"), 1_500, 10);
    }

    @Test
    void onePassRemovesTheWholeBacklogOfEveryPartitionOnACluster() {
        DelayQ dq = cluster();
        onePassRemovesTheWholeBacklog(dq, dq.queue("cparts", 3), 4_500, 10);
    }

    @Test
    void aPassSkipsAPartitionAnotherWorkerIsPurgingAndTakesItOnceThatPassEnded() {
        try (DelayQ dq = single()) {
            JobQueue q = dq.queue("shared");
            finish(q, 30);
            pastRetention(dq);
            Partition part = RedisQueue.of(q).partitions().get(0);
            // Worker w2 is in the middle of its pass (its first step hit its limit): w1 keeps out.
            assertThat(part.purgeStep(RETENTION.toMillis(), RETENTION.toMillis(), 10, Maintenance.LOCK_MS, "w2").more()).isTrue();
            awaitPastRetention(q, 20); // the 20 left, past the retention w2 recorded (once 1 ms has passed)
            new Maintenance(QueuePartition.of(parts(q)), Duration.ofMinutes(5), WorkerMetrics.NONE, "w1", 10).run();
            assertThat(q.inspector().stats().done() + q.inspector().stats().dead()).isEqualTo(20);
            // w2 goes on to the end of its pass, which releases the lock; w1's next pass has nothing left to do.
            int steps = 1;
            while (part.purgeStep(RETENTION.toMillis(), RETENTION.toMillis(), 10, Maintenance.LOCK_MS, "w2").more()) {
                assertThat(++steps).isLessThan(10);
            }
            assertThat(q.inspector().stats().done() + q.inspector().stats().dead()).isZero();
            assertThat(locks(q)).isEmpty();
        }
    }
}
