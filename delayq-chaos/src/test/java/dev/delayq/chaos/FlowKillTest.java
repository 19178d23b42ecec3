package dev.delayq.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQ;
import dev.delayq.DelayQException;
import dev.delayq.EnqueueResult;
import dev.delayq.Job;
import dev.delayq.JobEvent;
import dev.delayq.JobInfo;
import dev.delayq.JobListener.Outcome;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.QueueStats;
import dev.delayq.testkit.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 13, flows under faults (issue 40, "exactly once"): a 3-level graph of jobs ({@link FlowDag}: leaves, middle
 * jobs after 10 or 12 leaves, top jobs after 11 middle ones, batch callbacks that ignore dead parents, a few leaves
 * that fail for good) run by four worker processes ({@code delayq work --exec}), one SIGKILLed every 2 s and
 * restarted, while the {@code redis-server} under them (AOF, {@code appendfsync always}) is SIGKILLed and restarted in
 * the middle of it.
 *
 * <p>Besides the checker's classification (nothing lost, duplicated, unexpected or stale; no overlapping leases; no
 * lease run twice; its input proven), the flow's own invariants: every job ends as the graph says (the dead cascade
 * exactly the expected set, each of its jobs never started and dead with {@code parent P is dead}); every run of a
 * child started after every parent's accepted run had written its side effect (one clock, the sink's); every child was
 * released once (one {@code released} event, written by the script that finished its last parent) and started under
 * no more leases than Redis granted it (its attempts plus its stalls: each rerun is a lease recovered from a killed
 * worker); no job is left waiting ({@code stats}, {@code check} clean).
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
            // The whole graph goes in before any worker runs, so every child waits at its enqueue and is released by
            // a completion (a child whose parents are all done at its enqueue is scheduled there, not released).
            for (int level = 0; level <= 3; level++) {
                List<Job> jobs = dag.jobs(level, spread);
                for (int from = 0; from < jobs.size(); from += 500) {
                    for (EnqueueResult r : q.enqueueAll(jobs.subList(from, Math.min(jobs.size(), from + 500)))) {
                        assertThat(r.created()).as(r.id()).isTrue();
                        checker.acked(r.id());
                    }
                }
            }
            assertThat(q.inspector().stats().waiting()).as("children waiting after the enqueue").isEqualTo(total - leaves);

            for (int i = 0; i < 4; i++) {
                // exit 100 after the side effect: the run fails for good (docs/cli.md, work --exec).
                String failing = dag.failing().stream().collect(Collectors.joining("|"));
                workers.add(new WorkerProcess("w" + i, dir, redis.uri(), "chaos", QUEUE, sink, "",
                        "; case \"$DELAYQ_JOB_ID\" in " + failing + ") exit 100;; esac",
                        List.of("--lease", "5s", "--concurrency", "8", "--batch", "8", "--max-attempts", "50",
                                "--max-stalls", "1000", "--backoff-base", "100ms", "--backoff-cap", "1s")));
            }
            WorkerProcess.startAll(workers);

            // Fault phase: every 2 s SIGKILL one worker (seeded choice) and start it again, while work remains; once a
            // third of the jobs have ended, SIGKILL redis-server and restart it from its AOF (when every worker runs,
            // so that none is booting, and failing to connect, while Redis is down).
            long endedAtRestart = -1;
            long faultStart = System.nanoTime();
            long faultEnd = faultStart + spread.plusSeconds(60).toNanos(); // a bound for a machine slower than any seen
            while ((kills < maxKills || restarts == 0) && System.nanoTime() < faultEnd && !finished(q, total)) {
                TimeUnit.SECONDS.sleep(2); // the fault cadence, not a wait for a condition
                if (restarts == 0 && ended(q) >= total / 3) {
                    awaitRunning(workers);
                    endedAtRestart = ended(q);
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
                    .pollInterval(Duration.ofMillis(250)).until(() -> finished(q, total));
            WorkerProcess.stopAll(workers);

            Sink runs = Sink.read(sink);
            runs.feed(checker, workers, 16); // --concurrency + --batch: the most jobs a worker holds
            Checker.Verdict verdict = checker.check(q, expected::get);

            Map<String, JobInfo> infos = new HashMap<>();
            for (FlowDag.Node n : dag.nodes()) {
                infos.put(n.id(), q.get(n.id()).orElseThrow(() -> new AssertionError(n.id() + " is gone")));
            }
            Set<String> deadExpected = expected.entrySet().stream().filter(e -> e.getValue() == JobState.DEAD)
                    .map(Map.Entry::getKey).collect(Collectors.toCollection(TreeSet::new));
            Set<String> deadActual = q.inspector().stream(JobState.DEAD).map(JobInfo::id)
                    .collect(Collectors.toCollection(TreeSet::new));

            // The accepted run of each job: its final token's side effect, whose end is when the job finished.
            Map<String, Sink.Effect> finalEffect = new HashMap<>();
            for (Sink.Effect e : runs.effects()) {
                if (e.token() == infos.get(e.id()).token()) {
                    finalEffect.put(e.id(), e);
                }
            }
            Map<String, List<Sink.Start>> startsOf = runs.starts().stream().collect(Collectors.groupingBy(Sink.Start::id));
            Map<String, Long> released = new HashMap<>();
            Map<String, Long> completedEvents = new HashMap<>();
            for (JobEvent e : events(q)) {
                if (e.type().equals("released")) {
                    released.merge(e.jobId(), 1L, Long::sum);
                } else if (e.type().equals("completed")) {
                    completedEvents.merge(e.jobId(), 1L, Long::sum);
                }
            }

            List<String> problems = new ArrayList<>();
            long reruns = 0;
            long recovered = 0;
            long cascaded = 0;
            long ordered = 0; // (child run, parent) pairs whose order was checked
            for (FlowDag.Node n : dag.nodes()) {
                JobInfo info = infos.get(n.id());
                List<Sink.Start> starts = startsOf.getOrDefault(n.id(), List.of());
                long leases = starts.stream().map(Sink.Start::token).distinct().count();
                boolean cascade = expected.get(n.id()) == JobState.DEAD && !n.fails();
                if (info.stalls() > 0) {
                    recovered++;
                }
                if (cascade) {
                    cascaded++;
                    if (!starts.isEmpty()) {
                        problems.add(n.id() + " died of a dead parent yet started " + starts.size() + " time(s)");
                    }
                    if (info.lastError() == null || !info.lastError().matches("parent \\S+ is dead")
                            || expected.get(info.lastError().split(" ")[1]) != JobState.DEAD) {
                        problems.add(n.id() + " is dead with error '" + info.lastError() + "', not a dead parent's");
                    }
                } else {
                    if (leases == 0 || !finalEffect.containsKey(n.id())) {
                        problems.add(n.id() + " ended " + info.state() + " without a run under its final token");
                    }
                    // Each lease is a claim; claims are the attempts plus the leases that expired (a killed worker's).
                    if (leases > info.attempt() + info.stalls()) {
                        problems.add(n.id() + " started under " + leases + " leases, but had " + info.attempt()
                                + " attempt(s) and " + info.stalls() + " stall(s)");
                    }
                    reruns += Math.max(0, leases - 1);
                }
                if (n.level() > 0) {
                    long expectedReleases = cascade ? 0 : 1;
                    if (released.getOrDefault(n.id(), 0L) != expectedReleases) {
                        problems.add(n.id() + " released " + released.getOrDefault(n.id(), 0L) + " times, expected "
                                + expectedReleases);
                    }
                    for (String p : n.parents()) {
                        Sink.Effect parentEnd = finalEffect.get(p);
                        if (parentEnd == null) {
                            continue; // a parent dead of its own dead parent never ran (checked above)
                        }
                        for (Sink.Start s : starts) {
                            ordered++;
                            if (s.atMs() < parentEnd.endMs()) {
                                problems.add(n.id() + " token " + s.token() + " started at " + s.atMs()
                                        + " before its parent " + p + " finished at " + parentEnd.endMs());
                            }
                        }
                    }
                }
                if (expected.get(n.id()) == JobState.DONE && completedEvents.getOrDefault(n.id(), 0L) != 1) {
                    problems.add(n.id() + " has " + completedEvents.getOrDefault(n.id(), 0L) + " completed events");
                }
            }
            QueueStats stats = q.inspector().stats();
            double period = kills == 0 ? 0 : (faultEndedNanos - faultStart) / 1e9 / kills;
            long callbacks = dag.nodes().stream().filter(n -> n.level() == 3).count();
            String line = verdict.line("jobs", total, "leaves", leaves, "children", total - leaves,
                    "callbacks_ignore", callbacks, "failing", dag.failing().size(), "dead_cascade", cascaded,
                    "faults", kills + "xSIGKILL+" + restarts + "xRedisRestart", "ended_at_restart", endedAtRestart,
                    "kill_period_s", String.format(Locale.ROOT, "%.1f", period), "workers", 4,
                    "recovered", recovered, "reruns", reruns, "side_effects", runs.effects().size(),
                    "releases", released.values().stream().mapToLong(Long::longValue).sum(),
                    "order_checks", ordered, "waiting", stats.waiting(), "flow_problems", problems.size(),
                    "seconds", (System.nanoTime() - started) / 1_000_000_000L);
            verdict.assertClean();
            assertThat(deadActual).as("dead jobs: the failing leaves and the cascade of their deaths, exactly")
                    .isEqualTo(deadExpected);
            assertThat(problems).as(line).isEmpty();
            assertThat(stats.waiting()).as("jobs still waiting").isZero();
            assertThat(q.inspector().list(JobState.WAITING, 0, 10)).as("waiting jobs listed").isEmpty();
            assertThat(stats.done() + stats.dead()).as("jobs ended").isEqualTo(total);
            assertThat(kills).as("workers killed").isGreaterThanOrEqualTo(Math.min(maxKills, 3));
            assertThat(restarts).as("Redis restarts").isEqualTo(1);
            assertThat(endedAtRestart).as("jobs ended when Redis was killed").isBetween((long) total / 3, total - 1L);
            assertThat(redis.info("persistence").get("aof_enabled")).isEqualTo("1");
            assertThat(recovered).as("jobs run again after their worker was killed").isPositive();
            assertThat(cascaded).as("jobs dead of a dead parent").isPositive();
            assertThat(ordered).as("child runs checked against their parents' ends").isGreaterThan(total - leaves);
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

    /** Jobs ended (done or dead); -1 while Redis cannot answer. */
    private static long ended(JobQueue q) {
        try {
            QueueStats s = q.inspector().stats();
            return s.done() + s.dead();
        } catch (DelayQException e) {
            return -1;
        }
    }

    /** Every job ended (done or dead) and none waits, is due or runs; false while Redis cannot answer. */
    private static boolean finished(JobQueue q, int total) {
        try {
            QueueStats s = q.inspector().stats();
            return s.done() + s.dead() == total && s.waiting() == 0 && s.scheduled() == 0 && s.processing() == 0;
        } catch (DelayQException e) {
            return false;
        }
    }

    private static void awaitRunning(List<WorkerProcess> workers) {
        Awaitility.await("workers running").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> workers.stream().allMatch(WorkerProcess::ready));
    }

    /** The whole event stream, oldest first (its cap is far above what the scenario writes). */
    private static List<JobEvent> events(JobQueue q) {
        List<JobEvent> all = new ArrayList<>();
        String after = "0";
        while (true) {
            List<JobEvent> page = q.inspector().events().read(after, 10_000);
            if (page.isEmpty()) {
                return all;
            }
            all.addAll(page);
            after = page.get(page.size() - 1).eventId();
        }
    }
}
