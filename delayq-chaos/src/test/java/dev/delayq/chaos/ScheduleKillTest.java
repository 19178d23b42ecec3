package dev.delayq.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQ;
import dev.delayq.JobEvent;
import dev.delayq.JobInfo;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.Schedule;
import dev.delayq.testkit.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 12, schedules under worker kills: three worker processes (the real {@code delayq work --exec}) tick three
 * schedules (every second with missed ticks ALL and SKIP, and a 6-field cron every 2 s with ONCE) while one worker is
 * SIGKILLed every 2 s and restarted, and once every worker is killed for about 4 s (ticks pass with nobody ticking).
 * Checked: every tick is one job (no tick id enqueued twice is possible; none of their runs had two accepted
 * completions, no lease ran twice, no two runs of a tick overlapped; every done tick's completion was read from the
 * workers' logs), ALL has no gap at all from its first tick to its last (the outage caught up), SKIP and ONCE leave
 * gaps only across the outage, and every tick job ended done. A tick is missed, by design, when no worker advances
 * the schedule before it is due, which a machine too busy to run any ticker on time does outside the outage too: such
 * a gap is told apart by the event stream (no missing tick was ever enqueued, and the tick after the gap only after
 * the last missing one was due) and reported, not failed; any other gap outside the outage fails.
 */
class ScheduleKillTest {
    private static final String QUEUE = "sched";

    @Test
    void schedulesTickOncePerTickWhileWorkersAreKilled(@TempDir Path dir) throws Exception {
        Duration run = Chaos.time(Duration.ofSeconds(20), Duration.ofSeconds(90));
        Random random = new Random(Chaos.SEED);
        Checker checker = new Checker("12-schedule-worker-kill");
        Path sink = Files.createFile(dir.resolve("sink.txt"));
        long started = System.nanoTime();
        List<WorkerProcess> workers = new ArrayList<>();
        int kills = 0;
        try (RedisServer redis = RedisServer.start();
             DelayQ dq = DelayQ.builder().redis(redis.uri()).prefix("chaos").build()) {
            JobQueue q = dq.queue(QUEUE);
            q.inspector().events(true); // when each tick was enqueued: tells a gap of late tickers from a tick dropped on time
            for (int i = 0; i < 3; i++) {
                workers.add(new WorkerProcess("w" + i, dir, redis.uri(), "chaos", QUEUE, sink,
                        List.of("--lease", "5s", "--concurrency", "4", "--batch", "4")));
            }
            WorkerProcess.startAll(workers);
            q.schedules().upsert(Schedule.every("all", Duration.ofSeconds(1)).missed(Schedule.Missed.ALL));
            q.schedules().upsert(Schedule.every("skip", Duration.ofSeconds(1)));
            q.schedules().upsert(Schedule.cron("once", "*/2 * * * * *", ZoneId.of("Europe/Berlin")).missed(Schedule.Missed.ONCE));
            long begin = redisNow(dq);

            // Fault phase: every 2 s SIGKILL one worker (seeded choice) and start it again; half-way, kill them all
            // and keep them down for 4 s.
            long end = begin + run.toMillis();
            long outageFrom = -1;
            long outageTo = -1;
            while (redisNow(dq) < end) {
                TimeUnit.SECONDS.sleep(2); // the fault cadence, not a wait for a condition
                if (outageFrom < 0 && redisNow(dq) > begin + run.toMillis() / 2) {
                    for (WorkerProcess w : workers) {
                        w.kill();
                        kills++;
                    }
                    outageFrom = redisNow(dq);
                    TimeUnit.SECONDS.sleep(4); // the outage's length: nobody ticks
                    workers.forEach(WorkerProcess::launch);
                    // The outage lasts until a worker runs again (a JVM start takes seconds on a busy machine).
                    Awaitility.await("a worker back").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                            .until(() -> workers.stream().anyMatch(WorkerProcess::ready));
                    outageTo = redisNow(dq);
                    continue;
                }
                List<WorkerProcess> running = workers.stream().filter(WorkerProcess::ready).toList();
                if (running.isEmpty()) {
                    continue;
                }
                WorkerProcess victim = running.get(random.nextInt(running.size()));
                victim.kill();
                kills++;
                victim.launch();
            }
            Awaitility.await("workers restarted").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> workers.stream().allMatch(WorkerProcess::ready));
            // Let the restarted workers tick a few more seconds, then stop the schedules and drain.
            long resumed = redisNow(dq);
            Awaitility.await("ticks after the faults").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> redisNow(dq) > resumed + 3_000);
            for (String name : List.of("all", "skip", "once")) {
                q.schedules().remove(name);
            }
            Awaitility.await("drain").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250))
                    .until(() -> q.inspector().stats().scheduled() == 0 && q.inspector().stats().processing() == 0);
            WorkerProcess.stopAll(workers);

            // Every tick job that exists was enqueued by a schedule: the checker expects each to end done, once.
            Map<String, TreeSet<Long>> ticks = new TreeMap<>();
            for (JobState s : JobState.values()) {
                q.inspector().stream(s).map(JobInfo::id).forEach(id -> {
                    checker.acked(id);
                    int at = id.indexOf('@');
                    ticks.computeIfAbsent(id.substring(0, at), k -> new TreeSet<>()).add(Long.parseLong(id.substring(at + 1)));
                });
            }
            Sink runs = Sink.read(sink);
            runs.feed(checker, workers, 8); // --concurrency + --batch: the most jobs a worker holds
            Checker.Verdict verdict = checker.check(q, JobState.DONE);
            long sideEffects = runs.effects().size();
            long distinctRuns = runs.effects().stream().map(Sink.Effect::id).distinct().count();

            long allGaps = gaps(ticks.get("all"), 1000, -1, -1).size();
            List<long[]> skipGapsOutside = gaps(ticks.get("skip"), 1000, outageFrom, outageTo);
            long skipMissed = missed(ticks.get("skip"), 1000);
            List<long[]> onceGapsOutside = gaps(ticks.get("once"), 2000, outageFrom, outageTo);
            // A gap outside the outage is one no worker could help only if no missing tick was ever enqueued and the
            // tick after the gap was enqueued after the last missing tick was due: every ticker came late for it.
            Map<String, Long> enqueuedAt = enqueueTimes(q);
            List<String> droppedOnTime = new ArrayList<>();
            for (String name : List.of("skip", "once")) {
                long step = name.equals("skip") ? 1000 : 2000;
                for (long[] g : name.equals("skip") ? skipGapsOutside : onceGapsOutside) {
                    Long at = enqueuedAt.get(name + "@" + g[1]);
                    boolean missingEnqueued = false;
                    for (long m = g[0] + step; m < g[1]; m += step) {
                        missingEnqueued |= enqueuedAt.containsKey(name + "@" + m);
                    }
                    if (at == null || at < g[1] - step || missingEnqueued) {
                        droppedOnTime.add(name + " " + g[0] + " -> " + g[1] + " (next enqueued at " + at
                                + (missingEnqueued ? ", a missing tick was enqueued" : "") + ")");
                    }
                }
            }
            String line = verdict.line("seconds_ticking", (resumed + 3_000 - begin) / 1000, "faults", kills + "xSIGKILL",
                    "outage_ms", outageTo - outageFrom, "workers", 3,
                    "ticks", ticks.entrySet().stream().map(e -> e.getKey() + ":" + e.getValue().size())
                            .collect(Collectors.joining(",")),
                    "all_gaps", allGaps, "skip_missed", skipMissed, "skip_gaps_outside_outage", skipGapsOutside.size(),
                    "once_gaps_outside_outage", onceGapsOutside.size(), "gaps_outside_dropped_on_time",
                    droppedOnTime.size(), "side_effects", sideEffects, "runs_repeated",
                    sideEffects - distinctRuns, "seconds", (System.nanoTime() - started) / 1_000_000_000L);
            verdict.assertClean();
            assertThat(kills).as("workers killed: " + line).isGreaterThanOrEqualTo(5);
            assertThat(allGaps).as("ALL: no tick lost, the outage caught up: " + line).isZero();
            assertThat(ticks.get("all").last() - ticks.get("all").first()).as(line).isGreaterThanOrEqualTo(run.toMillis());
            assertThat(skipMissed).as("SKIP: the outage's ticks dropped: " + line).isPositive();
            assertThat(droppedOnTime).as("SKIP and ONCE: ticks missing outside the outage although a worker advanced "
                    + "the schedule in time: " + line).isEmpty();
            assertThat(distinctRuns).as("every tick ran: " + line).isEqualTo(ticks.values().stream().mapToLong(TreeSet::size).sum());
        } finally {
            for (WorkerProcess w : workers) {
                w.close();
            }
        }
    }

    private static long redisNow(DelayQ dq) {
        return dq.serverTime().toEpochMilli();
    }

    /**
     * Gaps (a step longer than {@code step}) between consecutive ticks, except those spanning the outage: each as the
     * ticks before and after it.
     */
    private static List<long[]> gaps(TreeSet<Long> ticks, long step, long outageFrom, long outageTo) {
        List<long[]> gaps = new ArrayList<>();
        Long prev = null;
        for (long t : ticks) {
            if (prev != null && t - prev > step && !(prev <= outageTo && t >= outageFrom)) {
                gaps.add(new long[] {prev, t});
            }
            prev = t;
        }
        return gaps;
    }

    /** When each job was enqueued (Redis clock, ms), from the queue's event stream. */
    private static Map<String, Long> enqueueTimes(JobQueue q) {
        Map<String, Long> at = new HashMap<>();
        String after = "0";
        List<JobEvent> page;
        while (!(page = q.inspector().events().read(after, 1000)).isEmpty()) {
            for (JobEvent e : page) {
                if (e.type().equals("enqueued")) {
                    at.putIfAbsent(e.jobId(), e.at().toEpochMilli());
                }
            }
            after = page.get(page.size() - 1).eventId();
        }
        return at;
    }

    /** Ticks missing between the first and the last. */
    private static long missed(TreeSet<Long> ticks, long step) {
        return (ticks.last() - ticks.first()) / step + 1 - ticks.size();
    }
}
