package dev.delayq.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.delayq.ClaimBatch;
import dev.delayq.ClaimOptions;
import dev.delayq.ClaimedJob;
import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobInfo;
import dev.delayq.JobQueue;
import dev.delayq.Lease;
import dev.delayq.QueueStats;
import dev.delayq.Worker;
import dev.delayq.WorkerMetrics;
import dev.delayq.internal.redis.Script;
import dev.delayq.testkit.FaultProxy;
import dev.delayq.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Lease renewal never waits behind maintenance. A worker purges done jobs past retention periodically; a large
 * backlog with slow replies makes a purge pass last many lease lengths. The proxy slows only the replies of the
 * connection that runs the purge script (it recognises the script's SHA), while jobs with a 2 s lease run for four
 * lease lengths: their renewals must go on, on their own thread and connection, so no lease is lost. The lease is
 * long enough that a scheduling pause of a busy machine (a few hundred ms) cannot expire it by itself; a renewal
 * waiting behind one slowed purge reply (5 s) would.
 */
class MaintenanceIsolationTest {
    private static final Duration LEASE = Duration.ofSeconds(2);
    /** Each reply of the purging connection arrives this late: a purge step (1,000 jobs) takes over 2 leases. */
    private static final Duration PURGE_REPLY_DELAY = Duration.ofSeconds(5);
    private static final Duration RUN = Duration.ofSeconds(8);

    @Test
    void aSlowRetentionPurgeNeverDelaysLeaseRenewal() throws Exception {
        int backlog = Chaos.size(20_000, 100_000);
        int jobs = 4;
        try (RedisServer redis = RedisServer.start();
             FaultProxy proxy = FaultProxy.start(redis.port(), Chaos.SEED, 0);
             DelayQ direct = DelayQ.builder().redis(redis.uri()).prefix("iso").clientName("seed").build();
             // The worker's client keeps done jobs 1 ms: the whole backlog is past retention for its purge.
             DelayQ client = DelayQ.builder().redis(proxy.uri()).prefix("iso").clientName("worker")
                     .doneRetention(Duration.ofMillis(1)).build()) {
            JobQueue seed = direct.queue("iso");
            doneBacklog(seed, backlog);
            for (int i = 0; i < jobs; i++) {
                seed.enqueue(Job.builder().id("long-" + i).build());
            }
            proxy.latencyAfter(Script.PURGE.sha(), PURGE_REPLY_DELAY);

            AtomicInteger leasesLost = new AtomicInteger();
            WorkerMetrics metrics = new WorkerMetrics() {
                @Override
                public void leaseLost(String queue) {
                    leasesLost.incrementAndGet();
                }
            };
            AtomicInteger runs = new AtomicInteger();
            List<String> lost = new CopyOnWriteArrayList<>();
            long started = System.nanoTime();
            try (Worker w = Worker.builder(client.queue("iso"), job -> {
                        runs.incrementAndGet();
                        long end = System.nanoTime() + RUN.toNanos();
                        while (System.nanoTime() < end) {
                            TimeUnit.MILLISECONDS.sleep(50);
                            if (job.leaseLost()) {
                                lost.add(job.id());
                                return;
                            }
                        }
                    }).concurrency(jobs).leaseDuration(LEASE).ackLinger(Duration.ZERO).purgeInterval(Duration.ofMillis(100))
                    .metrics(metrics).build().start()) {
                // Until every job is done, or a lease was lost (the arrangement under test failed: stop at once).
                await().atMost(Duration.ofSeconds(60)).until(() -> countDone(seed, jobs) == jobs || leasesLost.get() > 0);
                assertThat(leasesLost.get()).as("leases lost").isZero();
                // The purge ran meanwhile, on the slowed connection, and is still working through the backlog.
                await().atMost(Duration.ofSeconds(90)).until(() -> seed.inspector().stats().done() <= backlog - 1000);
                QueueStats stats = seed.inspector().stats();
                Chaos.record("maintenance-isolation backlog=" + backlog + " jobs=" + jobs + " lease_ms=" + LEASE.toMillis()
                        + " purge_reply_delay_ms=" + PURGE_REPLY_DELAY.toMillis() + " slowed_connections=" + proxy.slowed()
                        + " runs=" + runs.get() + " leases_lost=" + leasesLost.get() + " recovered=" + stats.total("recovered")
                        + " done_left=" + stats.done() + " seconds=" + (System.nanoTime() - started) / 1_000_000_000L);
                assertThat(proxy.slowed()).as("connections whose purge replies were slowed").isPositive();
                assertThat(lost).as("handlers that saw their lease lost").isEmpty();
                assertThat(leasesLost.get()).as("leases lost").isZero();
                assertThat(stats.total("recovered")).as("expired leases recovered").isZero();
                assertThat(runs.get()).as("handler runs").isEqualTo(jobs);
                for (int i = 0; i < jobs; i++) {
                    JobInfo info = seed.get("long-" + i).orElseThrow();
                    assertThat(info.attempt()).isEqualTo(1);
                    assertThat(info.stalls()).isZero();
                }
            }
        }
    }

    /** {@code n} done jobs, enqueued, claimed and completed in batches straight on Redis. */
    private static void doneBacklog(JobQueue q, int n) {
        List<Job> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(Job.builder().id("old-" + i).build());
        }
        q.enqueueAll(batch);
        int done = 0;
        while (done < n) {
            ClaimBatch b = q.leases().claim(ClaimOptions.of(1000, Duration.ofMinutes(5)));
            List<Lease> leases = new ArrayList<>();
            for (ClaimedJob j : b.jobs()) {
                leases.add(j.lease());
            }
            q.leases().completeAllAsync(leases).join();
            done += leases.size();
        }
        assertThat(q.inspector().stats().done()).isEqualTo(n);
    }

    private static int countDone(JobQueue q, int jobs) {
        int done = 0;
        for (int i = 0; i < jobs; i++) {
            done += q.get("long-" + i).map(info -> info.state() == dev.delayq.JobState.DONE ? 1 : 0).orElse(0);
        }
        return done;
    }
}
