package dev.delayq.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.JobContext;
import dev.delayq.JobHandler;
import dev.delayq.JobInfo;
import dev.delayq.JobListener;
import dev.delayq.JobListener.Outcome;
import dev.delayq.JobState;
import dev.delayq.JobQueue;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BiPredicate;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The queue checker of the fault suite, after Jepsen's: it hears which enqueues were acknowledged, which runs
 * happened and what Redis recorded for each, then reads the final state of every job and classifies:
 * <ul>
 *   <li><b>lost</b>: the enqueue was acknowledged (or ended in an error and the job exists anyway) but the job
 *       did not reach its expected final state;</li>
 *   <li><b>duplicated</b>: more than one run of a job had its completion accepted;</li>
 *   <li><b>unexpected</b>: a job completed that was never enqueued;</li>
 *   <li><b>stale accepted</b>: an accepted completion whose fencing token is not the job's final token;</li>
 *   <li><b>overlaps</b>: a run started (under a newer lease) before an older run whose outcome Redis then
 *       accepted had finished: two live leases at once;</li>
 *   <li><b>run twice under one token</b>: more than one run of a job under the same lease.</li>
 * </ul>
 * Where the runs are read back from worker processes' sinks and logs, the checker can be made to prove its input
 * ({@link #requireEvidence}): an accepted outcome heard for every job under its final token, and the times of every
 * accepted completion, so that a log or sink format the reading no longer understands fails the scenario instead of
 * leaving nothing to classify.
 * Thread-safe: handlers and listeners on many threads report to one checker.
 */
final class Checker {
    /**
     * One run of a job. Its times are ms on a clock that every run of the job shares (the wall clock for in-process
     * workers, the machine's uptime for worker processes, see {@link Sink}).
     *
     * @param startMs when the handler (or the process's command) started, or -1 when not known
     * @param endMs   when it returned (the command: wrote its side effect), before its outcome was sent, or -1
     * @param outcome what Redis recorded for the run, or {@code null} when nothing was heard (its worker was killed)
     */
    record Run(String id, long token, long startMs, long endMs, Outcome outcome) {
        boolean accepted() {
            return outcome == Outcome.COMPLETED || outcome == Outcome.RETRY_SCHEDULED || outcome == Outcome.DEAD;
        }
    }

    private final String scenario;
    private final Set<String> acked = ConcurrentHashMap.newKeySet();
    private final Set<String> uncertain = ConcurrentHashMap.newKeySet();
    private final ConcurrentLinkedQueue<Run> runs = new ConcurrentLinkedQueue<>();
    // run (the JobContext the worker hands to the handler and then to the listener) -> start, end; by identity, not by
    // id and token: after a failover that lost claims, two runs of one job can hold the same token (RELIABILITY.md)
    private final Map<JobContext, long[]> timing = Collections.synchronizedMap(new IdentityHashMap<>());
    private volatile boolean deletedOnCompletion;
    private volatile BiPredicate<String, Long> mayBeUnheard;

    Checker(String scenario) {
        this.scenario = scenario;
    }

    /**
     * The workers' client keeps no done jobs (done retention 0): a job that is gone and whose completion Redis
     * accepted counts as done; gone without an accepted completion is still lost.
     */
    Checker deletedOnCompletion() {
        deletedOnCompletion = true;
        return this;
    }

    /**
     * Makes {@link #check} prove its input: every job that ended in its expected state must have an accepted outcome
     * heard under its final token (unless {@code mayBeUnheard} excuses that id and token: its worker was killed before
     * it could log what Redis accepted), and every accepted completion must carry its start and end times.
     */
    Checker requireEvidence(BiPredicate<String, Long> mayBeUnheard) {
        this.mayBeUnheard = mayBeUnheard;
        return this;
    }

    /** An enqueue of {@code id} was acknowledged by Redis. */
    void acked(String id) {
        acked.add(id);
    }

    /** An enqueue of {@code id} ended in an error: the job may or may not exist. */
    void uncertain(String id) {
        uncertain.add(id);
    }

    /** Acknowledged enqueues so far. */
    int ackedCount() {
        return acked.size();
    }

    /** A run and the outcome Redis recorded for it. */
    void run(Run run) {
        runs.add(run);
    }

    /** Every run heard so far. */
    List<Run> runs() {
        return List.copyOf(runs);
    }

    /** Accepted completions heard so far. */
    long completions() {
        return runs.stream().filter(r -> r.outcome() == Outcome.COMPLETED).count();
    }

    /** Wraps a handler so that each run's start and end times are known to {@link #listener()}. */
    JobHandler timed(JobHandler handler) {
        return job -> {
            long[] t = {System.currentTimeMillis(), -1};
            timing.put(job, t);
            try {
                handler.handle(job);
            } finally {
                t[1] = System.currentTimeMillis();
            }
        };
    }

    /** A worker listener that records every outcome (with the times of {@link #timed(JobHandler)}). */
    JobListener listener() {
        return (job, outcome) -> {
            long[] t = timing.remove(job);
            runs.add(new Run(job.id(), job.token(), t == null ? -1 : t[0], t == null ? -1 : t[1], outcome));
        };
    }

    /**
     * Reads the final state of every job the checker heard of and classifies it.
     *
     * @param expected the state every enqueued job must end in (DONE, or DEAD for poison jobs)
     */
    Verdict check(JobQueue q, JobState expected) {
        return check(q, id -> expected);
    }

    /**
     * As {@link #check(JobQueue, JobState)}, with the state each job must end in given per id (a flow: DONE, or DEAD
     * for a job that fails for good and for the children its death ends). A job that ends as expected without ever
     * having been leased (fencing token 0: a child made dead by its parent's death) has no outcome to hear.
     */
    Verdict check(JobQueue q, Function<String, JobState> expectedOf) {
        Map<String, List<Run>> byId = runs.stream().collect(Collectors.groupingBy(Run::id, HashMap::new, Collectors.toList()));
        Set<String> known = new HashSet<>(acked);
        known.addAll(uncertain);
        Set<String> ids = new HashSet<>(known);
        ids.addAll(byId.keySet());

        List<String> lost = new ArrayList<>();
        List<String> duplicated = new ArrayList<>();
        List<String> unexpected = new ArrayList<>();
        List<String> stale = new ArrayList<>();
        List<String> overlaps = new ArrayList<>();
        List<String> twice = new ArrayList<>();
        List<String> unheard = new ArrayList<>();
        List<String> untimed = new ArrayList<>();
        BiPredicate<String, Long> excuse = mayBeUnheard;
        long excused = 0;
        int runsPerToken = 0;
        int uncertainWritten = 0;
        for (String id : ids) {
            JobState expected = expectedOf.apply(id);
            Optional<JobInfo> info = q.get(id);
            List<Run> mine = byId.getOrDefault(id, List.of());
            long completed = mine.stream().filter(r -> r.outcome() == Outcome.COMPLETED).count();
            boolean doneAndDeleted = deletedOnCompletion && expected == JobState.DONE && info.isEmpty() && completed > 0;
            if (acked.contains(id) || (uncertain.contains(id) && (info.isPresent() || doneAndDeleted))) {
                if (uncertain.contains(id) && !acked.contains(id)) {
                    uncertainWritten++;
                }
                if (!doneAndDeleted && (info.isEmpty() || info.get().state() != expected)) {
                    lost.add(id + " (" + info.map(i -> i.state().name()).orElse("absent") + ")");
                }
            }
            if (completed > 0 && !known.contains(id)) {
                unexpected.add(id);
            }
            if (completed > 1) {
                duplicated.add(id + " x" + completed);
            }
            Map<Long, Long> perToken = mine.stream().collect(Collectors.groupingBy(Run::token, Collectors.counting()));
            for (Map.Entry<Long, Long> e : perToken.entrySet()) {
                runsPerToken = (int) Math.max(runsPerToken, e.getValue());
                if (e.getValue() > 1) {
                    twice.add(id + " token " + e.getKey() + " x" + e.getValue());
                }
            }
            if (excuse != null && info.isPresent() && info.get().state() == expected && info.get().token() != 0) {
                long last = info.get().token();
                Outcome accepted = expected == JobState.DEAD ? Outcome.DEAD : Outcome.COMPLETED;
                if (mine.stream().noneMatch(r -> r.token() == last && r.outcome() == accepted)) {
                    if (excuse.test(id, last)) {
                        excused++;
                    } else {
                        unheard.add(id + " token " + last);
                    }
                }
            }
            for (Run r : mine) {
                if (excuse != null && r.outcome() == Outcome.COMPLETED && (r.startMs() < 0 || r.endMs() < 0)) {
                    untimed.add(id + " token " + r.token());
                }
                if (r.outcome() == Outcome.COMPLETED && info.isPresent() && r.token() != info.get().token()) {
                    stale.add(id + " token " + r.token() + " != " + info.get().token());
                }
                if (r.accepted() && r.endMs() >= 0) {
                    for (Run newer : mine) {
                        if (newer.token() > r.token() && newer.startMs() >= 0 && newer.startMs() < r.endMs()) {
                            overlaps.add(id + " token " + newer.token() + " started before token " + r.token() + " ended");
                        }
                    }
                }
            }
        }
        // A job that completed in Redis but was never enqueued by this scenario (e.g. a torn, replayed write).
        q.inspector().stream(JobState.DONE).filter(j -> !known.contains(j.id())).forEach(j -> unexpected.add(j.id() + " (done)"));
        long refused = runs.stream().filter(r -> r.outcome() == Outcome.REFUSED).count();
        Evidence evidence = excuse == null ? null : new Evidence(unheard, excused, untimed);
        return new Verdict(scenario, acked.size(), uncertain.size(), uncertainWritten, completions(), refused,
                lost, duplicated, unexpected, stale, overlaps, twice, runsPerToken, evidence, q.inspector().check().problems());
    }

    /**
     * What proves the checker's input ({@link #requireEvidence}).
     *
     * @param unheard jobs ended as expected without an accepted outcome heard under their final token
     * @param excused such jobs whose worker was killed just after the run (see {@link Sink#feed})
     * @param untimed accepted completions without the times the overlap check needs
     */
    record Evidence(List<String> unheard, long excused, List<String> untimed) {
    }

    /** What the checker found; {@link #line(Map)} is the scenario's result line for RELIABILITY.md. */
    record Verdict(String scenario, int acked, int uncertain, int uncertainWritten, long completions, long refused,
                   List<String> lost, List<String> duplicated, List<String> unexpected, List<String> staleAccepted,
                   List<String> overlaps, List<String> runTwice, int runsPerToken, Evidence evidence,
                   List<String> checkProblems) {

        /** {@link #line(Map)} with the scenario's figures as name, value pairs, in that order. */
        String line(Object... nameValuePairs) {
            Map<String, Object> extra = new LinkedHashMap<>();
            for (int i = 0; i + 1 < nameValuePairs.length; i += 2) {
                extra.put(String.valueOf(nameValuePairs[i]), nameValuePairs[i + 1]);
            }
            return line(extra);
        }

        /** Records and returns the result line with the scenario's own figures (faults injected, ...). */
        String line(Map<String, ?> extra) {
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("acked", acked);
            f.put("uncertain", uncertain + "(" + uncertainWritten + " written)");
            f.put("completions", completions);
            f.putAll(extra);
            f.put("lost", lost.size());
            f.put("duplicated", duplicated.size());
            f.put("unexpected", unexpected.size());
            f.put("stale_accepted", staleAccepted.size());
            f.put("refused", refused);
            f.put("overlaps", overlaps.size());
            f.put("runs_per_token_max", runsPerToken);
            if (evidence != null) {
                f.put("unheard", evidence.unheard().size());
                f.put("unheard_excused", evidence.excused());
                f.put("untimed", evidence.untimed().size());
            }
            f.put("check", checkProblems.isEmpty() ? "clean" : checkProblems.size() + " problems");
            String line = scenario + " " + f.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                    .collect(Collectors.joining(" "));
            Chaos.record(line);
            return line;
        }

        /** Fails the test with examples when anything was lost, duplicated, unexpected, stale or overlapping. */
        void assertClean() {
            expectNone(lost, "lost jobs");
            expectNone(duplicated, "jobs completed by more than one lease holder");
            expectNone(unexpected, "completed jobs never enqueued");
            expectNone(staleAccepted, "completions accepted under a token that is not the job's");
            expectNone(overlaps, "jobs with two live leases at once");
            expectNone(runTwice, "runs of a job under a token another run of it had");
            if (evidence != null) {
                expectNone(evidence.unheard(), "jobs ended as expected with no accepted outcome heard under their final "
                        + "token (is the worker's log still read right?)");
                expectNone(evidence.untimed(), "accepted completions without start and end times (is the sink still "
                        + "read right?)");
            }
            expectNone(checkProblems, "queue check problems");
        }

        private void expectNone(List<String> found, String what) {
            assertThat(found.size()).as("%s: %s, e.g. %s", scenario, what,
                    found.subList(0, Math.min(10, found.size()))).isZero();
        }
    }
}
