package dev.delayq.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobInfo;
import dev.delayq.JobState;
import dev.delayq.JobQueue;
import dev.delayq.RetryPolicy;
import dev.delayq.Worker;
import dev.delayq.testkit.RedisServer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Scenario 9, poison jobs: jobs whose handler always throws, max attempts 5: every one ends dead with exactly
 * 5 attempts and its error kept, and no retry starts sooner than the policy's base after the failure before
 * it (both times by Redis {@code TIME}: the failure's TIME is taken before it is reported, the retry's after
 * it starts, so a short backoff cannot hide).
 */
class PoisonJobTest {
    private static final Duration BASE = Duration.ofMillis(200);

    @Test
    void alwaysFailingJobsEndDeadAfterExactlyTheirAttemptsWithFullBackoffs() throws Exception {
        int jobs = 500;
        Checker checker = new Checker("9-poison-jobs");
        Map<String, List<long[]>> attempts = new ConcurrentHashMap<>(); // id -> [attempt, start us, fail us]
        try (RedisServer redis = RedisServer.start();
             DelayQ dq = DelayQ.builder().redis(redis.uri()).prefix("chaos").build();
             DelayQ clock = DelayQ.builder().redis(redis.uri()).prefix("chaos-clock").build()) {
            JobQueue q = dq.queue("poison");
            List<Job> batch = new ArrayList<>();
            for (int i = 0; i < jobs; i++) {
                batch.add(Job.builder().id("p" + i).payload("poison " + i).maxAttempts(5).build());
            }
            q.enqueueAll(batch).forEach(r -> checker.acked(r.id()));
            // The worker's default would allow 20 attempts: the jobs' own maximum (5) must win.
            RetryPolicy policy = RetryPolicy.builder().maxAttempts(20).base(BASE).cap(Duration.ofMillis(800)).build();
            try (Worker worker = Worker.builder(q, checker.timed(job -> {
                long start = micros(clock.serverTime());
                long failAt = micros(clock.serverTime());
                attempts.computeIfAbsent(job.id(), k -> new java.util.concurrent.CopyOnWriteArrayList<>())
                        .add(new long[] {job.attempt(), start, failAt});
                throw new IllegalStateException("poison " + job.id() + " attempt " + job.attempt());
            })).concurrency(64).retryPolicy(policy).listener(checker.listener()).build().start()) {
                Awaitility.await("all dead").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(100))
                        .until(() -> q.inspector().stats().dead() == jobs);
            }
            Checker.Verdict verdict = checker.check(q, JobState.DEAD);
            long wrongAttempts = 0;
            long shortBackoffs = 0;
            long minGapMicros = Long.MAX_VALUE;
            for (int i = 0; i < jobs; i++) {
                JobInfo info = q.get("p" + i).orElseThrow();
                List<long[]> runs = new ArrayList<>(attempts.getOrDefault(info.id(), List.of()));
                runs.sort((a, b) -> Long.compare(a[0], b[0]));
                if (info.attempt() != 5 || runs.size() != 5 || runs.get(runs.size() - 1)[0] != 5
                        || !firstLine(info.lastError()).equals(IllegalStateException.class.getName() + ": poison " + info.id() + " attempt 5")) {
                    wrongAttempts++;
                }
                for (int a = 1; a < runs.size(); a++) {
                    long gap = runs.get(a)[1] - runs.get(a - 1)[2];
                    minGapMicros = Math.min(minGapMicros, gap);
                    if (gap < BASE.toNanos() / 1000) {
                        shortBackoffs++;
                    }
                }
            }
            String line = verdict.line("jobs", jobs, "faults", "every run throws", "dead", q.inspector().stats().dead(),
                    "wrong_attempts", wrongAttempts, "short_backoffs", shortBackoffs, "backoff_base_ms", BASE.toMillis(),
                    "min_fail_to_retry_ms", String.format(java.util.Locale.ROOT, "%.1f", minGapMicros / 1000.0));
            verdict.assertClean();
            assertThat(q.inspector().stats().dead()).as(line).isEqualTo(jobs);
            assertThat(wrongAttempts).as("dead jobs without exactly 5 attempts and their last error: " + line).isZero();
            assertThat(shortBackoffs).as("retries sooner than the base backoff: " + line).isZero();
            assertThat(verdict.completions()).isZero();
        }
    }

    private static long micros(Instant t) {
        return t.getEpochSecond() * 1_000_000L + t.getNano() / 1000;
    }

    /** The error summary's first line: the exception (its first stack frames follow). */
    private static String firstLine(String error) {
        return error == null ? "" : error.lines().findFirst().orElse("");
    }
}
