package dev.delayq.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQ;
import dev.delayq.DelayQException;
import dev.delayq.EnqueueResult;
import dev.delayq.Job;
import dev.delayq.JobListener.Outcome;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.QueueStats;
import dev.delayq.testkit.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 13, flows under faults (issue 40, "exactly once"): a 3-level graph of jobs ({@link FlowDag}: leaves, middle
 * jobs after 10 or 12 leaves, top jobs after 11 middle ones, batch callbacks that ignore dead parents, a few leaves
 * that fail for good) run by four worker processes ({@code delayq work --exec}), one SIGKILLed every 2 s and
 * restarted, while the {@code redis-server} under them (AOF, {@code appendfsync always}) is SIGKILLed and restarted
 * once a fifth of the jobs have ended (and every worker runs again). Besides the checker's classification (nothing
 * lost, duplicated, unexpected or stale; no overlapping leases; no lease run twice; its input proven), the flow's own
 * invariants ({@link FlowInvariants}: the dead cascade exactly as the graph implies, every child started after all its
 * parents ended, released once, run once per lease Redis granted it) and nothing left waiting.
 */
class FlowKillTest {
    private static final String QUEUE = "flow";

    @Test
    void aDagRunByKilledWorkersAcrossARedisRestartReleasesEachChildOnceAfterAllItsParents(@TempDir Path dir)
            throws Exception {
        int leaves = Chaos.size(1_000, 2_000);
        int maxKills = Chaos.size(6, 15);
        // Leaves fall due faster than four workers run them (about 100 commands a second on two cores), so every kill
        // finds work held: the backlog lasts through the fault phase.
        Duration spread = Chaos.time(Duration.ofSeconds(5), Duration.ofSeconds(10));
        FlowDag dag = FlowDag.of(leaves);
        Map<String, JobState> expected = dag.expected();
        int total = expected.size();
        Random random = new Random(Chaos.SEED);
        Checker checker = new Checker("13-flow");
        Path sink = Files.createFile(dir.resolve("sink.txt"));
        long started = System.nanoTime();
        List<WorkerProcess> workers = new ArrayList<>();
        int kills = 0;
        int restarts = 0;
        try (RedisServer redis = RedisServer.builder().config("appendonly", "yes").config("appendfsync", "always").start();
             DelayQ dq = DelayQ.builder().redis(redis.uri()).prefix("chaos").build()) {
            JobQueue q = dq.queue(QUEUE);
            // Every change of every job, appended by the script that made it: the releases are counted from here.
            q.inspector().events(1_000_000);
            dag.enqueue(q, checker, spread);
            assertThat(q.inspector().stats().waiting()).as("children waiting after the enqueue").isEqualTo(total - leaves);

            // exit 100 after the side effect: the run fails for good (docs/cli.md, work --exec).
            String failing = dag.failing().stream().collect(Collectors.joining("|"));
            for (int i = 0; i < 4; i++) {
                workers.add(new WorkerProcess("w" + i, dir, redis.uri(), "chaos", QUEUE, sink, "",
                        "; case \"$DELAYQ_JOB_ID\" in " + failing + ") exit 100;; esac",
                        List.of("--lease", "5s", "--concurrency", "8", "--batch", "8", "--max-attempts", "50",
                                "--max-stalls", "1000", "--backoff-base", "100ms", "--backoff-cap", "1s")));
            }
            WorkerProcess.startAll(workers);

            // Fault phase: every 2 s SIGKILL one worker (seeded choice) and start it again, while work remains; once a
            // fifth of the jobs have ended, SIGKILL redis-server and restart it from its AOF, when every worker runs (so
            // that none is booting, and failing to connect, while Redis is down: a restarted worker's boot takes
            // seconds, so Redis goes down with between a fifth and most of the jobs ended; the figure is reported).
            long endedAtRestart = -1;
            long waitingAtRestart = -1;
            long faultStart = System.nanoTime();
            long faultEnd = faultStart + spread.plusSeconds(60).toNanos(); // a bound for a machine slower than any seen
            while ((kills < maxKills || restarts == 0) && System.nanoTime() < faultEnd
                    && !FlowInvariants.finished(q, total)) {
                TimeUnit.SECONDS.sleep(2); // the fault cadence, not a wait for a condition
                if (restarts == 0 && FlowInvariants.ended(q) >= total / 5) {
                    awaitRunning(workers);
                    endedAtRestart = FlowInvariants.ended(q);
                    waitingAtRestart = q.inspector().stats().waiting();
                    redis.kill();
                    redis.restart();
                    restarts++;
                }
                // A worker running a command now, so that the kill leaves a lease to recover; any running one if none.
                Set<String> busy = Sink.busyWorkers(sink);
                List<WorkerProcess> running = workers.stream().filter(WorkerProcess::ready).toList();
                List<WorkerProcess> holding = running.stream().filter(w -> busy.contains(w.incarnation())).toList();
                if (!holding.isEmpty()) {
                    running = holding;
                }
                if (running.isEmpty() || kills == maxKills) {
                    continue;
                }
                WorkerProcess victim = running.get(random.nextInt(running.size()));
                victim.kill();
                kills++;
                victim.launch();
            }
            long faultEndedNanos = System.nanoTime();
            awaitRunning(workers);
            Awaitility.await("drain").atMost(Duration.ofSeconds(Chaos.size(120, 600)))
                    .pollInterval(Duration.ofMillis(250)).until(() -> FlowInvariants.finished(q, total));
            WorkerProcess.stopAll(workers);

            Sink runs = Sink.read(sink);
            runs.feed(checker, workers, 16); // --concurrency + --batch: the most jobs a worker holds
            Checker.Verdict verdict = checker.check(q, expected::get);

            FlowInvariants.Result flow = FlowInvariants.check(dag, q, checker.runs(), run -> false);
            QueueStats stats = q.inspector().stats();
            double period = kills == 0 ? 0 : (faultEndedNanos - faultStart) / 1e9 / kills;
            long callbacks = dag.nodes().stream().filter(n -> n.level() == 3).count();
            String line = verdict.line("jobs", total, "leaves", leaves, "children", total - leaves,
                    "callbacks_ignore", callbacks, "failing", dag.failing().size(), "dead_cascade", flow.cascaded(),
                    "faults", kills + "xSIGKILL+" + restarts + "xRedisRestart", "ended_at_restart", endedAtRestart,
                    "waiting_at_restart", waitingAtRestart,
                    "kill_period_s", String.format(Locale.ROOT, "%.1f", period), "workers", 4,
                    "recovered", flow.recovered(), "reruns", flow.reruns(), "side_effects", runs.effects().size(),
                    "releases", flow.releases(), "order_checks", flow.orderChecks(), "waiting", stats.waiting(),
                    "flow_problems", flow.problems().size(), "seconds", (System.nanoTime() - started) / 1_000_000_000L);
            verdict.assertClean();
            assertThat(flow.problems()).as(line).isEmpty();
            assertThat(stats.waiting()).as("jobs still waiting").isZero();
            assertThat(q.inspector().list(JobState.WAITING, 0, 10)).as("waiting jobs listed").isEmpty();
            assertThat(stats.done() + stats.dead()).as("jobs ended").isEqualTo(total);
            assertThat(kills).as("workers killed").isGreaterThanOrEqualTo(Math.min(maxKills, 3));
            assertThat(restarts).as("Redis restarts").isEqualTo(1);
            assertThat(endedAtRestart).as("jobs ended when Redis was killed").isBetween((long) total / 5, total - 1L);
            assertThat(waitingAtRestart).as("children waiting for their parents when Redis was killed").isPositive();
            assertThat(redis.info("persistence").get("aof_enabled")).isEqualTo("1");
            assertThat(flow.recovered()).as("jobs whose lease expired under a killed worker").isPositive();
            assertThat(flow.cascaded()).as("jobs dead of a dead parent").isPositive();
            assertThat(flow.orderChecks()).as("child runs checked against their parents' ends").isGreaterThan(total - leaves);
            for (WorkerProcess w : workers) {
                assertThat(w.outcomes()).filteredOn(r -> r.outcome() == Outcome.DEAD).extracting(Checker.Run::id)
                        .allMatch(dag.failing()::contains);
            }
        } finally {
            for (WorkerProcess w : workers) {
                w.close();
            }
        }
    }

    private static void awaitRunning(List<WorkerProcess> workers) {
        Awaitility.await("workers running").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> workers.stream().allMatch(WorkerProcess::ready));
    }
}
