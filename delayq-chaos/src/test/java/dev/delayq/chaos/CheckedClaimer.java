package dev.delayq.chaos;

import dev.delayq.Ack;
import dev.delayq.ClaimBatch;
import dev.delayq.ClaimOptions;
import dev.delayq.ClaimedJob;
import dev.delayq.DelayQConnectionException;
import dev.delayq.DelayQTimeoutException;
import dev.delayq.JobInfo;
import dev.delayq.JobListener.Outcome;
import dev.delayq.JobState;
import dev.delayq.JobQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A claimer that distrusts every answer: it calls {@link JobQueue#claim} directly (no worker) and checks each
 * claimed job against Redis before completing it. A claim decoded wrongly (a torn reply spliced into another
 * command's output) shows up as a job that was never enqueued, a payload that is not the job's, or a job that
 * Redis does not hold as processing under the token the claim returned; a replayed complete shows up as
 * "already applied" on a first try. Every run is reported to the {@link Checker}. Runs on a thread of its own.
 */
final class CheckedClaimer {
    private static final Duration PAUSE = Duration.ofMillis(20);
    /** Clock differences and scheduling: a lease this close to its end is not relied on. */
    private static final Duration LEASE_MARGIN = Duration.ofMillis(500);

    private final JobQueue queue;
    private final Checker checker;
    private final ClaimOptions options;
    private final String idPrefix;
    private final Map<String, Long> errors = Collections.synchronizedMap(new TreeMap<>());
    private final List<String> wrongAnswers = Collections.synchronizedList(new ArrayList<>());
    private final AtomicLong claims = new AtomicLong();
    private final AtomicLong jobsChecked = new AtomicLong();
    private final AtomicLong lateChecks = new AtomicLong();
    private final Thread thread;
    private volatile boolean stop;

    CheckedClaimer(String name, JobQueue queue, Checker checker, ClaimOptions options, String idPrefix) {
        this.queue = queue;
        this.checker = checker;
        this.options = options;
        this.idPrefix = idPrefix;
        this.thread = new Thread(this::run, "checked-claimer-" + name);
        thread.setDaemon(true);
    }

    CheckedClaimer start() {
        thread.start();
        return this;
    }

    private void run() {
        while (!stop) {
            long sent = System.nanoTime();
            Optional<ClaimBatch> batch = call("claim", () -> queue.leases().claim(options));
            if (batch.isEmpty()) {
                // An error: claim again after a pause (the jobs of a lost reply come back after their lease).
                if (!pause()) {
                    return;
                }
                continue;
            }
            claims.incrementAndGet();
            if (batch.get().jobs().isEmpty() && !pause()) {
                return;
            }
            for (ClaimedJob job : batch.get().jobs()) {
                if (!runOne(job, sent)) {
                    return;
                }
            }
        }
    }

    /**
     * Checks one claimed job against Redis, completes it, reports the run; false when stopped. The check is strict
     * while the lease cannot have expired yet ({@code sent}: when the claim was sent); a claimer held up by many
     * failed calls may see its lease expire (the job recovered, or claimed again), which is the queue working.
     */
    private boolean runOne(ClaimedJob job, long sent) {
        long start = System.currentTimeMillis();
        jobsChecked.incrementAndGet();
        if (!job.id().startsWith(idPrefix)) {
            wrongAnswers.add("claim returned a job never enqueued: " + job);
        } else if (!job.payloadUtf8().equals(ChaosProducer.payloadOf(job.id()))) {
            wrongAnswers.add("claim returned " + job.id() + " with the payload '" + job.payloadUtf8() + "'");
        }
        Optional<JobInfo> info = retried("get", () -> queue.get(job.id()));
        if (info == null) {
            return false;
        }
        boolean leaseSurely = System.nanoTime() - sent < options.lease().minus(LEASE_MARGIN).toNanos();
        if (!leaseSurely) {
            lateChecks.incrementAndGet();
        } else if (info.isEmpty() || info.get().state() != JobState.PROCESSING || info.get().token() != job.token()) {
            wrongAnswers.add("claim returned " + job.id() + " under token " + job.token() + " but Redis has "
                    + info.map(i -> i.state() + " token " + i.token()).orElse("no such job"));
        }
        long end = System.currentTimeMillis();
        boolean[] firstTry = {true};
        Ack ack = retried("complete", () -> {
            boolean first = firstTry[0];
            firstTry[0] = false;
            Ack a = queue.leases().complete(job.lease());
            if (first && a == Ack.ALREADY_APPLIED) {
                wrongAnswers.add("the first complete of " + job.id() + " token " + job.token()
                        + " answered already applied: it was sent twice");
            }
            return a;
        });
        if (ack == null) {
            return false;
        }
        checker.run(new Checker.Run(job.id(), job.token(), start, end, ack.applied() ? Outcome.COMPLETED : Outcome.REFUSED));
        return true;
    }

    /** Runs {@code call} until it answers; null when stopped meanwhile. */
    private <T> T retried(String what, Supplier<T> call) {
        while (true) {
            Optional<T> r = call(what, call);
            if (r.isPresent()) {
                return r.get();
            }
            if (!pause()) {
                return null;
            }
        }
    }

    private <T> Optional<T> call(String what, Supplier<T> call) {
        try {
            return Optional.of(call.get());
        } catch (DelayQConnectionException | DelayQTimeoutException e) {
            errors.merge(what + ":" + e.getClass().getSimpleName(), 1L, Long::sum);
        } catch (RuntimeException e) {
            // A cut connection or a slow server surfaces as one of the two above; anything else is a reply decoded
            // wrongly (or a bug).
            errors.merge(what + ":" + e.getClass().getSimpleName(), 1L, Long::sum);
            wrongAnswers.add(what + " threw " + e);
        }
        return Optional.empty();
    }

    private boolean pause() {
        try {
            Thread.sleep(PAUSE.toMillis()); // the claimer's polling and retry pace
            return !stop;
        } catch (InterruptedException e) {
            return false;
        }
    }

    /** Stops claiming and waits (bounded) for the thread to end. */
    void stop() throws InterruptedException {
        stop = true;
        thread.join(10_000);
    }

    /** Errors met, by {@code operation:exception}. */
    Map<String, Long> errors() {
        synchronized (errors) {
            return new TreeMap<>(errors);
        }
    }

    long errorCount() {
        return errors().values().stream().mapToLong(Long::longValue).sum();
    }

    /** Claim calls answered. */
    long claims() {
        return claims.get();
    }

    /** Claimed jobs checked against Redis. */
    long jobsChecked() {
        return jobsChecked.get();
    }

    /** Claimed jobs checked only after their lease may have expired (state not compared). */
    long lateChecks() {
        return lateChecks.get();
    }

    /** Answers that did not fit Redis's state. */
    List<String> wrongAnswers() {
        synchronized (wrongAnswers) {
            return new ArrayList<>(wrongAnswers);
        }
    }
}
