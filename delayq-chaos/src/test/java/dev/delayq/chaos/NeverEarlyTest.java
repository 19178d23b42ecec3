package dev.delayq.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobState;
import dev.delayq.JobQueue;
import dev.delayq.Worker;
import dev.delayq.testkit.RedisServer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Scenario 8, never early: jobs due at random instants over a minute; each handler first asks Redis for
 * {@code TIME}. No job starts before its due time by Redis's clock (the reply is taken after the start, so
 * an early start shows as TIME < due; the worker leases ahead of time and waits on its estimate of Redis's
 * clock, which must never run ahead).
 */
class NeverEarlyTest {
    @Test
    void noJobStartsBeforeItsDueTimeByRedisTime() throws Exception {
        int jobs = Chaos.size(2_000, 10_000);
        Duration spread = Chaos.time(Duration.ofSeconds(10), Duration.ofSeconds(60));
        Checker checker = new Checker("8-never-early");
        ConcurrentLinkedQueue<long[]> starts = new ConcurrentLinkedQueue<>(); // redis micros at start, due ms
        Random random = new Random(Chaos.SEED);
        try (RedisServer redis = RedisServer.start();
             DelayQ dq = DelayQ.builder().redis(redis.uri()).prefix("chaos").build();
             DelayQ clock = DelayQ.builder().redis(redis.uri()).prefix("chaos-clock").build()) {
            JobQueue q = dq.queue("early");
            List<Worker> workers = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                workers.add(Worker.builder(q, checker.timed(job -> {
                    Instant now = clock.serverTime();
                    starts.add(new long[] {now.getEpochSecond() * 1_000_000L + now.getNano() / 1000, job.dueAt().toEpochMilli()});
                })).concurrency(16).listener(checker.listener()).build().start());
            }
            try {
                Instant base = dq.serverTime().plusMillis(500);
                List<Job> batch = new ArrayList<>();
                for (int i = 0; i < jobs; i++) {
                    // Some share a millisecond, most are spread at random over the window.
                    long offset = i % 10 == 0 ? 1_000 : (long) (random.nextDouble() * spread.toMillis());
                    batch.add(Job.builder().id("e" + i).payload("early " + i).runAt(base.plusMillis(offset)).build());
                    if (batch.size() == 500 || i == jobs - 1) {
                        q.enqueueAll(batch).forEach(r -> checker.acked(r.id()));
                        batch.clear();
                    }
                }
                Awaitility.await("drain").atMost(spread.plusSeconds(60)).pollInterval(Duration.ofMillis(100))
                        .until(() -> q.inspector().stats().done() == jobs);
            } finally {
                workers.forEach(Worker::close);
            }
            Checker.Verdict verdict = checker.check(q, JobState.DONE);
            long early = 0;
            long minSlackMicros = Long.MAX_VALUE;
            List<Long> lags = new ArrayList<>();
            for (long[] s : starts) {
                long slack = s[0] - s[1] * 1000L;
                minSlackMicros = Math.min(minSlackMicros, slack);
                lags.add(slack);
                if (slack < 0) {
                    early++;
                }
            }
            lags.sort(null);
            String line = verdict.line("jobs", jobs, "faults", "none (timing)", "spread_s", spread.toSeconds(),
                    "started_early", early, "min_start_minus_due_ms", String.format(java.util.Locale.ROOT, "%.3f", minSlackMicros / 1000.0),
                    "p50_start_minus_due_ms", String.format(java.util.Locale.ROOT, "%.3f", lags.get(lags.size() / 2) / 1000.0));
            verdict.assertClean();
            assertThat(starts).hasSize(jobs);
            assertThat(early).as("jobs started before their due time by Redis TIME: " + line).isZero();
        }
    }
}
