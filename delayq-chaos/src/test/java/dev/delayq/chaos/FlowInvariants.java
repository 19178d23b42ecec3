package dev.delayq.chaos;

import dev.delayq.DelayQException;
import dev.delayq.JobEvent;
import dev.delayq.JobInfo;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.QueueStats;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The flow invariants of scenario 13 ({@link FlowDag}), checked after the drain against Redis's final state, its event
 * stream and the runs the {@link Checker} heard (with their start and end times on one clock):
 * <ul>
 *   <li>the dead jobs are exactly the failing leaves and the cascade the graph implies; a job of the cascade never
 *       started and is dead with {@code parent P is dead}, P itself dead;</li>
 *   <li>every child run started after each parent's run under the parent's final token (its accepted one) had ended;</li>
 *   <li>every child that ran was released exactly once (one {@code released} event, written by the script that finished
 *       its last parent), after the {@code completed} or {@code dead} event of each of its parents in the stream's
 *       order (Redis's own), one of the cascade never;</li>
 *   <li>every job that ran was started under at most as many leases as Redis granted it (its attempts plus its stalls,
 *       each stall a lease that expired under a killed worker), and at least one;</li>
 *   <li>every done job has exactly one {@code completed} event.</li>
 * </ul>
 * A run the scenario knows may have been erased from Redis's history (a lease or a release written by a master killed
 * before its replica had it) is excused from the order and lease counts when it is not under the job's final token,
 * and counted.
 */
final class FlowInvariants {
    /** What was found, with the scenario's figures. */
    record Result(List<String> problems, long cascaded, long recovered, long reruns, long releases, long orderChecks,
                  long excused) {
    }

    private FlowInvariants() {
    }

    /**
     * @param mayBeErased a run whose lease may have been lost with a killed master (never true in a scenario without
     *                    a failover)
     */
    static Result check(FlowDag dag, JobQueue q, List<Checker.Run> runs, Predicate<Checker.Run> mayBeErased) {
        Map<String, JobState> expected = dag.expected();
        Map<String, JobInfo> infos = new HashMap<>();
        for (FlowDag.Node n : dag.nodes()) {
            infos.put(n.id(), q.get(n.id()).orElseThrow(() -> new AssertionError(n.id() + " is gone")));
        }
        List<String> problems = new ArrayList<>();
        Set<String> deadExpected = expected.entrySet().stream().filter(e -> e.getValue() == JobState.DEAD)
                .map(Map.Entry::getKey).collect(Collectors.toCollection(TreeSet::new));
        Set<String> deadActual = q.inspector().stream(JobState.DEAD).map(JobInfo::id)
                .collect(Collectors.toCollection(TreeSet::new));
        if (!deadActual.equals(deadExpected)) {
            problems.add("dead jobs " + deadActual + ", expected exactly " + deadExpected);
        }

        Map<String, List<Checker.Run>> started = runs.stream().filter(r -> r.startMs() >= 0)
                .collect(Collectors.groupingBy(Checker.Run::id));
        // The run under the job's final token that reached its end; of two (a token granted again after a failover), the
        // one that ended first, whose outcome may be the one Redis took.
        Map<String, Checker.Run> finalRun = new HashMap<>();
        for (Checker.Run r : runs) {
            if (r.endMs() >= 0 && r.token() == infos.get(r.id()).token()) {
                finalRun.merge(r.id(), r, (a, b) -> a.endMs() <= b.endMs() ? a : b);
            }
        }
        Map<String, Long> released = new HashMap<>();
        Map<String, Long> completed = new HashMap<>();
        Map<String, Integer> releasedAt = new HashMap<>(); // positions in the stream, which scripts append in order
        Map<String, Integer> endedAt = new HashMap<>(); // a job's completed or dead event
        List<JobEvent> events = events(q);
        for (int i = 0; i < events.size(); i++) {
            JobEvent e = events.get(i);
            switch (e.type()) {
                case "released" -> {
                    released.merge(e.jobId(), 1L, Long::sum);
                    releasedAt.put(e.jobId(), i);
                }
                case "completed" -> {
                    completed.merge(e.jobId(), 1L, Long::sum);
                    endedAt.put(e.jobId(), i);
                }
                case "dead" -> endedAt.put(e.jobId(), i);
                default -> {
                }
            }
        }

        long cascaded = 0;
        long recovered = 0;
        long reruns = 0;
        long ordered = 0;
        long excused = 0;
        for (FlowDag.Node n : dag.nodes()) {
            JobInfo info = infos.get(n.id());
            List<Checker.Run> starts = new ArrayList<>();
            for (Checker.Run r : started.getOrDefault(n.id(), List.of())) {
                if (r.token() != info.token() && mayBeErased.test(r)) {
                    excused++;
                } else {
                    starts.add(r);
                }
            }
            long leases = starts.stream().map(Checker.Run::token).distinct().count();
            boolean cascade = expected.get(n.id()) == JobState.DEAD && !n.fails();
            if (info.stalls() > 0) {
                recovered++;
            }
            if (cascade) {
                cascaded++;
                if (!starts.isEmpty()) {
                    problems.add(n.id() + " died of a dead parent yet started " + starts.size() + " time(s)");
                }
                String error = info.lastError();
                if (error == null || !error.matches("parent \\S+ is dead") || expected.get(error.split(" ")[1]) != JobState.DEAD) {
                    problems.add(n.id() + " is dead with error '" + error + "', not a dead parent's");
                }
            } else {
                if (!finalRun.containsKey(n.id())) {
                    problems.add(n.id() + " ended " + info.state() + " without a run under its final token");
                }
                // Each lease is a claim; claims are the attempts plus the leases that expired (a killed worker's).
                if (leases < 1 || leases > info.attempt() + info.stalls()) {
                    problems.add(n.id() + " started under " + leases + " lease(s), with " + info.attempt()
                            + " attempt(s) and " + info.stalls() + " stall(s)");
                }
                reruns += Math.max(0, leases - 1);
            }
            if (n.level() > 0) {
                long releases = released.getOrDefault(n.id(), 0L);
                if (releases != (cascade ? 0 : 1)) {
                    problems.add(n.id() + " released " + releases + " time(s), expected " + (cascade ? 0 : 1));
                }
                for (String p : n.parents()) {
                    // In Redis's own order: the release comes after every parent's end (completed or dead).
                    Integer at = releasedAt.get(n.id());
                    if (at != null && (endedAt.get(p) == null || endedAt.get(p) > at)) {
                        problems.add(n.id() + " released at event " + at + ", before its parent " + p + " ended (event "
                                + endedAt.get(p) + ")");
                    }
                    Checker.Run parentEnd = finalRun.get(p);
                    if (parentEnd == null) {
                        continue; // a parent dead of its own dead parent never ran (checked as its own job)
                    }
                    for (Checker.Run s : starts) {
                        ordered++;
                        if (s.startMs() < parentEnd.endMs()) {
                            problems.add(n.id() + " token " + s.token() + " started at " + s.startMs()
                                    + " before its parent " + p + " ended at " + parentEnd.endMs());
                        }
                    }
                }
            }
            if (expected.get(n.id()) == JobState.DONE && completed.getOrDefault(n.id(), 0L) != 1) {
                problems.add(n.id() + " has " + completed.getOrDefault(n.id(), 0L) + " completed events");
            }
        }
        long releases = released.values().stream().mapToLong(Long::longValue).sum();
        return new Result(problems, cascaded, recovered, reruns, releases, ordered, excused);
    }

    /** Jobs ended (done or dead); -1 while Redis cannot answer. */
    static long ended(JobQueue q) {
        try {
            QueueStats s = q.inspector().stats();
            return s.done() + s.dead();
        } catch (DelayQException e) {
            return -1;
        }
    }

    /** Every one of {@code total} jobs ended and none waits, is due or runs; false while Redis cannot answer. */
    static boolean finished(JobQueue q, int total) {
        try {
            QueueStats s = q.inspector().stats();
            return s.done() + s.dead() == total && s.waiting() == 0 && s.scheduled() == 0 && s.processing() == 0;
        } catch (DelayQException e) {
            return false;
        }
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
