package dev.delayq.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQ;
import dev.delayq.EnqueueResult;
import dev.delayq.Job;
import dev.delayq.JobInfo;
import dev.delayq.JobListener.Outcome;
import dev.delayq.JobState;
import dev.delayq.JobQueue;
import dev.delayq.testkit.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 1, worker kill: four worker processes (the real {@code delayq work --exec}), one SIGKILLed every
 * 2 s and restarted, while they drain jobs with a 5 s lease. Nothing is lost or unexpected, and every
 * completion Redis accepted carries the job's current token (and its side effect ran under that token), no two
 * runs of a job overlap (times from the sink) and no lease ran twice. The checker proves its input: every done job's
 * accepted completion was read from the workers' logs.
 */
class WorkerKillTest {
    private static final String QUEUE = "kill";

    @Test
    void killingWorkersEveryTwoSecondsLosesNothing(@TempDir Path dir) throws Exception {
        int jobs = Chaos.size(1_500, 20_000);
        int maxKills = Chaos.size(5, 30);
        Duration spread = Chaos.time(Duration.ofSeconds(10), Duration.ofSeconds(40));
        Random random = new Random(Chaos.SEED);
        Checker checker = new Checker("1-worker-kill");
        Path sink = Files.createFile(dir.resolve("sink.txt"));
        long started = System.nanoTime();
        List<WorkerProcess> workers = new ArrayList<>();
        int kills = 0;
        try (RedisServer redis = RedisServer.start();
             DelayQ dq = DelayQ.builder().redis(redis.uri()).prefix("chaos").build()) {
            JobQueue q = dq.queue(QUEUE);
            for (int i = 0; i < 4; i++) {
                workers.add(new WorkerProcess("w" + i, dir, redis.uri(), "chaos", QUEUE, sink,
                        List.of("--lease", "5s", "--concurrency", "8", "--batch", "8", "--max-attempts", "50",
                                "--backoff-base", "100ms", "--backoff-cap", "1s")));
            }
            WorkerProcess.startAll(workers);
            // Jobs are due over the fault phase, so kills hit workers that hold leases.
            List<Job> batch = new ArrayList<>();
            for (int i = 0; i < jobs; i++) {
                batch.add(Job.builder().id("k" + i).payload("job " + i)
                        .delay(Duration.ofMillis(spread.toMillis() * i / jobs)).build());
                if (batch.size() == 500 || i == jobs - 1) {
                    for (EnqueueResult r : q.enqueueAll(batch)) {
                        assertThat(r.created()).isTrue();
                        checker.acked(r.id());
                    }
                    batch.clear();
                }
            }

            // Fault phase: every 2 s SIGKILL one worker (seeded choice) and start it again, while work remains.
            // A restart takes a JVM start (seconds on a busy machine), so a killed worker starts again in the
            // background while the next kill, 2 s later, picks among the workers that are running.
            long faultStart = System.nanoTime();
            long faultEnd = faultStart + spread.plusSeconds(10).toNanos();
            while (kills < maxKills && System.nanoTime() < faultEnd && q.inspector().stats().done() < jobs) {
                TimeUnit.SECONDS.sleep(2); // the fault cadence, not a wait for a condition
                List<WorkerProcess> running = workers.stream().filter(WorkerProcess::ready).toList();
                if (running.isEmpty()) {
                    continue;
                }
                WorkerProcess victim = running.get(random.nextInt(running.size()));
                victim.kill();
                kills++;
                victim.launch();
            }
            long faultEndedNanos = System.nanoTime();
            // Heal: all four run; leases of the killed incarnations expire (5 s) and their jobs run again.
            Awaitility.await("workers restarted").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> workers.stream().allMatch(WorkerProcess::ready));
            // Every job starts four processes: on a 2-vCPU VM that costs about 25 ms of CPU per job (docs/perf/journal.md,
            // "work --exec"), so 20,000 jobs take minutes of process creation alone; the budget is for that, not a goal.
            Awaitility.await("drain").atMost(Duration.ofSeconds(Chaos.size(120, 900)))
                    .pollInterval(Duration.ofMillis(250)).until(() -> q.inspector().stats().done() == jobs);
            WorkerProcess.stopAll(workers);

            Sink runs = Sink.read(sink);
            runs.feed(checker, workers, 16); // --concurrency + --batch: the most jobs a worker holds
            Checker.Verdict verdict = checker.check(q, JobState.DONE);

            // Every done job's final token ran its side effect (the checker finds a token run twice).
            Set<String> sideEffects = new HashSet<>();
            runs.effects().forEach(e -> sideEffects.add(e.id() + " " + e.token()));
            long missingSideEffect = 0;
            long recovered = 0;
            for (int i = 0; i < jobs; i++) {
                JobInfo info = q.get("k" + i).orElseThrow();
                if (!sideEffects.contains(info.id() + " " + info.token())) {
                    missingSideEffect++;
                }
                if (info.stalls() > 0) { // its lease expired under a killed worker: run again
                    recovered++;
                }
            }
            double period = kills == 0 ? 0 : (faultEndedNanos - faultStart) / 1e9 / kills;
            String line = verdict.line("jobs", jobs, "faults", kills + "xSIGKILL", "kill_period_s",
                    String.format(java.util.Locale.ROOT, "%.1f", period), "workers", 4,
                    "recovered", recovered, "side_effects", runs.effects().size(),
                    "seconds", (System.nanoTime() - started) / 1_000_000_000L);
            verdict.assertClean();
            assertThat(kills).as("workers killed").isGreaterThanOrEqualTo(Math.min(maxKills, 3));
            assertThat(recovered).as("jobs run again after their worker was killed").isPositive();
            assertThat(missingSideEffect).as("done jobs whose final token never ran its side effect: " + line).isZero();
            assertThat(verdict.completions()).as("accepted completions logged").isLessThanOrEqualTo(jobs);
            for (WorkerProcess w : workers) {
                assertThat(w.outcomes()).extracting(Checker.Run::outcome).doesNotContain(Outcome.DEAD);
            }
        } finally {
            for (WorkerProcess w : workers) {
                w.close();
            }
        }
    }
}
