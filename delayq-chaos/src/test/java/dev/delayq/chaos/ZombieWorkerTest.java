package dev.delayq.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQ;
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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 2, zombie worker: a worker process is frozen with SIGSTOP for twice its lease while it holds jobs,
 * another worker recovers and runs them, then the zombie is resumed with SIGCONT and tries to finish what it
 * held. Redis accepts none of its stale completions: every job re-leased from it is refused exactly once
 * (by Redis, or by the zombie itself when the lease had run out before the job could start), and every
 * refusal is of a lease whose job another lease finished. No two runs of a job overlap with an accepted one (times
 * from the sinks) and every done job's accepted completion was read from the workers' logs.
 */
class ZombieWorkerTest {
    private static final String QUEUE = "zombie";

    @Test
    void aResumedZombieHasEveryStaleCompletionRefused(@TempDir Path dir) throws Exception {
        int jobs = Chaos.size(400, 1_000);
        Duration lease = Chaos.time(Duration.ofSeconds(2), Duration.ofSeconds(5));
        Checker checker = new Checker("2-zombie-worker");
        Path zombieSink = Files.createFile(dir.resolve("zombie-sink.txt"));
        Path healthySink = Files.createFile(dir.resolve("healthy-sink.txt"));
        // Each run takes 200 ms, so the zombie holds a full set of leases when it is frozen.
        List<String> options = List.of("--lease", lease.toMillis() + "ms", "--concurrency", "16", "--batch", "16",
                "--max-attempts", "20", "--backoff-base", "100ms", "--backoff-cap", "1s");
        // The zombie's calls in flight at the freeze get their replies when it resumes. On a busy machine the freeze
        // (until the healthy worker's JVM has started and taken every lease over) can outlast the 10 s command timeout,
        // and a claim whose reply times out leaves leases the zombie never learns of, so it neither runs nor refuses
        // them (seen once in three loaded runs: a frozen lease neither refused nor run).
        List<String> zombieOptions = new ArrayList<>(options);
        zombieOptions.addAll(List.of("--timeout", "5m"));
        try (RedisServer redis = RedisServer.start();
             DelayQ dq = DelayQ.builder().redis(redis.uri()).prefix("chaos").build();
             WorkerProcess zombie = new WorkerProcess("zombie", dir, redis.uri(), "chaos", QUEUE, zombieSink,
                     "sleep 0.2; ", zombieOptions);
             WorkerProcess healthy = new WorkerProcess("healthy", dir, redis.uri(), "chaos", QUEUE, healthySink,
                     "sleep 0.2; ", options)) {
            JobQueue q = dq.queue(QUEUE);
            List<Job> all = new ArrayList<>();
            for (int i = 0; i < jobs; i++) {
                all.add(Job.builder().id("z" + i).payload("job " + i).build());
            }
            q.enqueueAll(all).forEach(r -> checker.acked(r.id()));

            zombie.start();
            Awaitility.await("zombie busy").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                    .until(() -> Sink.read(zombieSink).effects().size() >= 16 && q.inspector().stats().processing() >= 8);
            zombie.pause();
            // Only the zombie has run so far: every lease held now is its own.
            Map<String, Long> frozen = new HashMap<>();
            q.inspector().stream(JobState.PROCESSING).forEach(j -> frozen.put(j.id(), j.token()));
            long frozenAt = System.nanoTime();

            healthy.start();
            // The fault: frozen for twice its lease, while the healthy worker recovers and runs its jobs, and until it
            // has taken over every lease the zombie held (it recovers 10 a claim, and on a busy machine its JVM may start
            // seconds after the freeze: a lease not yet recovered is still the zombie's own, and its completion is right).
            TimeUnit.NANOSECONDS.sleep(Math.max(0, frozenAt + 2 * lease.toNanos() - System.nanoTime()));
            Awaitility.await("every frozen lease taken over").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(50))
                    .until(() -> frozen.entrySet().stream().allMatch(e -> q.get(e.getKey()).map(j -> j.token() != e.getValue())
                            .orElse(true)));
            zombie.resume();
            long frozenMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - frozenAt);

            Awaitility.await("drain").atMost(Duration.ofSeconds(Chaos.size(120, 300)))
                    .pollInterval(Duration.ofMillis(100)).until(() -> q.inspector().stats().done() == jobs);
            zombie.stop();
            healthy.stop();

            Sink.read(zombieSink, healthySink).feed(checker, List.of(zombie, healthy), 32); // none killed
            Checker.Verdict verdict = checker.check(q, JobState.DONE);

            Set<String> reLeased = new HashSet<>();
            for (Map.Entry<String, Long> e : frozen.entrySet()) {
                JobInfo info = q.get(e.getKey()).orElseThrow();
                if (info.token() != e.getValue()) {
                    reLeased.add(e.getKey() + " " + e.getValue());
                }
            }
            // Each lease refused: by Redis (a stale completion) or by the zombie itself (run out before it started).
            List<String> refusals = new ArrayList<>();
            long refusedByRedis = 0;
            for (Checker.Run r : zombie.outcomes()) {
                if (r.outcome() == Outcome.REFUSED) {
                    refusals.add(r.id() + " " + r.token());
                    refusedByRedis++;
                }
            }
            List<String[]> notStarted = zombie.notStarted();
            for (String[] n : notStarted) {
                refusals.add(n[0] + " " + n[1]);
            }
            Set<String> refused = new HashSet<>(refusals);
            // Runs that finished a job, by either worker: every refused lease's job was finished under another.
            Map<String, Set<Long>> completedTokens = new HashMap<>();
            for (WorkerProcess w : List.of(zombie, healthy)) {
                for (Checker.Run r : w.outcomes()) {
                    if (r.outcome() == Outcome.COMPLETED) {
                        completedTokens.computeIfAbsent(r.id(), k -> new HashSet<>()).add(r.token());
                    }
                }
            }
            long staleCompletionsAccepted = zombie.outcomes().stream()
                    .filter(r -> r.outcome() == Outcome.COMPLETED && frozen.containsKey(r.id())
                            && frozen.get(r.id()) == r.token() && reLeased.contains(r.id() + " " + r.token()))
                    .count();
            String line = verdict.line("jobs", jobs, "faults", "1xSIGSTOP " + (2 * lease.toMillis()) + "ms",
                    "lease_ms", lease.toMillis(), "held_when_frozen", frozen.size(), "re_leased", reLeased.size(),
                    "refused_by_redis", refusedByRedis, "refused_before_start", notStarted.size(),
                    "stale_completions_accepted", staleCompletionsAccepted, "frozen_ms", frozenMs);
            verdict.assertClean();
            assertThat(frozen).as("leases the zombie held when frozen").isNotEmpty();
            assertThat(reLeased).as("frozen for twice its lease, all its jobs were re-leased: " + line)
                    .hasSize(frozen.size());
            assertThat(staleCompletionsAccepted).isZero();
            assertThat(refusals).as("no lease refused twice: " + line).doesNotHaveDuplicates();
            List<String> unrefused = new ArrayList<>();
            for (String l : reLeased) {
                if (!refused.contains(l)) {
                    unrefused.add(l + " (the zombie's lines of it: " + zombie.logLinesNaming(l.split(" ")[0]) + ")");
                }
            }
            assertThat(unrefused).as("every lease re-leased from the frozen zombie was refused: " + line).isEmpty();
            // A claim the zombie sent just before the SIGSTOP can reach Redis after the snapshot above: such a
            // lease is refused too without being in `frozen`. Whichever it is, a refused lease is one whose job
            // was finished under another lease, never the lease that finished it.
            for (String r : refused) {
                String[] f = r.split(" ");
                assertThat(completedTokens.getOrDefault(f[0], Set.of()))
                        .as("job %s, refused under lease %s, was finished under another: %s", f[0], f[1], line)
                        .isNotEmpty()
                        .doesNotContain(Long.parseLong(f[1]));
                assertThat(q.get(f[0]).orElseThrow().token()).as("final lease of %s", f[0])
                        .isNotEqualTo(Long.parseLong(f[1]));
            }
        }
    }
}
