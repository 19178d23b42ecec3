package dev.delayq.internal.worker;

import dev.delayq.ClaimedJob;
import dev.delayq.NonRetryableException;
import dev.delayq.RetryLaterException;
import dev.delayq.RetryPolicy;
import dev.delayq.WorkerMetrics;
import dev.delayq.internal.base.Validation;
import dev.delayq.internal.trace.JobTracing;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs claimed jobs on the executor: waits for a job's due time when it was leased ahead (never starting it
 * before Redis's clock reaches it), calls the handler of the job's name, frees the slot, and routes the outcome
 * (complete, retry, dead) to the {@link Acker}. A handler that throws never harms the worker; one that runs past
 * its timeout is interrupted and its run fails at the deadline, whether or not the handler stops.
 */
final class Dispatcher {
    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);
    private static final int SUMMARY_FRAMES = 5;

    private final WorkerContext ctx;
    private final String queue;
    private final Routes routes;
    private final Executor executor;
    private final ServerClock[] clocks;
    private final Ticker ticker;
    private final InFlight inFlight;
    private final Acker acker;
    private final WorkerConfig config;
    private final RetryPolicy policy;
    private final WorkerMetrics metrics;
    private final HandBack handBack;
    private final String worker;
    private final Deadlines deadlines;
    private final Running.ProgressSink progressSink;
    private final Running.ParentReader parentReader;
    private final JobTracing tracing;

    /**
     * Runs the jobs of {@code ctx}'s worker on {@code executor}, with the handlers of {@code routes}; outcomes go to
     * {@code acker}, jobs the executor refuses to {@code handBack}, and runs past their timeout are ended by
     * {@code deadlines}.
     */
    Dispatcher(WorkerContext ctx, Routes routes, Executor executor, Acker acker, HandBack handBack, Deadlines deadlines) {
        this.ctx = ctx;
        this.queue = ctx.queue();
        this.routes = routes;
        this.executor = executor;
        this.clocks = ctx.clocks();
        this.ticker = ctx.ticker();
        this.inFlight = ctx.inFlight();
        this.acker = acker;
        this.config = ctx.config();
        this.policy = config.retryPolicy();
        this.metrics = ctx.metrics();
        this.handBack = handBack;
        this.worker = config.name();
        this.deadlines = deadlines;
        this.progressSink = (lease, text) -> ctx.part(lease.partition()).progress(lease, text);
        this.parentReader = (lease, id) -> ctx.part(lease.partition()).parentResults(id);
        this.tracing = ctx.part(0).tracing();
    }

    void dispatch(ClaimedJob job) {
        Running r = new Running(queue, job, ticker.nanos(), progressSink, parentReader);
        inFlight.add(r);
        try {
            executor.execute(() -> run(r));
        } catch (RuntimeException e) { // the user's executor is a callback too: it never stops the claim loop
            if (e instanceof RejectedExecutionException) {
                LOG.warn("worker {}: executor refused {}; handing it back", worker, r);
            } else {
                ctx.callbacks().failed("executor", e);
            }
            freeSlot();
            handBack.one(r);
        }
    }

    private void run(Running r) {
        boolean ownsEnd = true; // false when the timeout ended the run: it sent the outcome and freed the slot
        String[] mdc = null;
        try {
            if (!awaitDue(r)) {
                return; // handed back before it was due (shutdown)
            }
            if (clocks[r.job.partition()].nowMillis() >= r.leaseUntilMillis) {
                // The lease ran out before the job could start (the worker was paused, starved or cut off past
                // it): the job is, or is about to be, recovered and run elsewhere. Starting it here would only
                // produce a duplicate side effect whose completion Redis refuses.
                r.markLost();
                inFlight.remove(r);
                metrics.leaseLost(queue);
                JobLog.leaseLost(r, "expired before the job could start (not started)", null);
                return;
            }
            r.startNanos = ticker.nanos();
            if (!r.tryStart()) {
                return; // handed back at shutdown an instant before it could start
            }
            mdc = JobLog.enter(r); // the handler's log lines name the job; taken out below, whatever the handler does
            metrics.started(queue, Math.max(0, clocks[r.job.partition()].nowMillis() - r.job.dueAtMillis()));
            long timeout = r.job.timeoutMillis() > 0 ? r.job.timeoutMillis() : config.jobTimeout().toMillis();
            ScheduledFuture<?> deadline = timeout > 0 ? deadlines.after(timeout, () -> timedOut(r, timeout)) : null;
            JobTracing.Attempt span = tracing.attempt(queue, r); // current while the handler runs, so its spans nest
            Outcome outcome = invoke(r);
            span.end(outcome.error != null || !r.leaseLost() ? outcome.error : "lease lost before the handler returned",
                    outcome.thrown);
            if (deadline != null) {
                deadline.cancel(false);
            }
            r.detach();
            if (!r.tryReturn()) {
                ownsEnd = false;
                JobLog.returnedAfterTimeout(r, timeout, ticker.nanos()); // its run failed at the deadline, and that failure is logged
                return;
            }
            r.finishedNanos = ticker.nanos();
            // The outcome reaches the acknowledger before the job counts as finished, so that a shutdown
            // waiting for "nothing running and nothing unacknowledged" cannot slip in between.
            if (!r.released) { // a job handed back at shutdown: its outcome would be refused
                send(r, outcome);
            }
        } finally {
            if (mdc != null) {
                JobLog.leave(mdc);
            }
            r.detach();
            Thread.interrupted(); // never hand an interrupted thread back to the pool
            if (ownsEnd) {
                end(r);
            }
        }
    }

    private void send(Running r, Outcome outcome) {
        r.acking = true;
        if (outcome.error == null) {
            acker.complete(r);
        } else {
            metrics.failed(queue, r.finishedNanos - r.startNanos);
            acker.fail(r, outcome.error, outcome.retryable, outcome.backoff);
        }
    }

    private void end(Running r) {
        if (r.finishedNanos == 0) {
            r.finishedNanos = ticker.nanos();
        }
        r.finished = true;
        freeSlot();
    }

    /**
     * The deadline of a run passed: its attempt fails now (retried per policy), its slot is freed, and its handler is
     * interrupted. A handler that ignores the interrupt keeps its thread until it returns, but the job is no longer
     * this worker's: its context reports the lease lost and whatever it returns is ignored.
     */
    private void timedOut(Running r, long timeoutMillis) {
        if (r.released || !r.tryTimeOut()) {
            return; // it returned in time, or was handed back at shutdown
        }
        r.finishedNanos = ticker.nanos();
        String error = "timed out after " + Validation.human(Duration.ofMillis(timeoutMillis));
        // Not a warning of its own: the failed attempt is logged once, with this error, when Redis has recorded it.
        LOG.debug("worker {}: {} in queue {} {}: interrupting its handler and failing the attempt", worker, r, queue, error);
        send(r, new Outcome(error, true, backoff(r), null));
        r.interrupt();
        end(r);
    }

    private boolean awaitDue(Running r) {
        ServerClock clock = clocks[r.job.partition()];
        if (!clock.known()) {
            return !r.released;
        }
        long dueNanos = clock.nanosAt(r.job.dueAtMillis(), ticker.nanos());
        long wait;
        while (!r.released && (wait = dueNanos - ticker.nanos()) > 0) {
            LockSupport.parkNanos(this, wait);
        }
        return !r.released;
    }

    private Outcome invoke(Running r) {
        Routes.Route route = routes.find(r.name());
        if (route == null) {
            return new Outcome(routes.missing(r.name()), false, Duration.ZERO, null);
        }
        try {
            route.run(r);
            return Outcome.OK;
        } catch (Routes.Undecodable e) {
            return new Outcome(e.getMessage(), false, Duration.ZERO, e); // retrying cannot fix the payload's bytes
        } catch (NonRetryableException e) {
            return new Outcome(summary(e), false, Duration.ZERO, e);
        } catch (RetryLaterException e) {
            return new Outcome(summary(e), true, e.delay(), e);
        } catch (Throwable e) {
            JobLog.threw(r, e);
            return new Outcome(summary(e), true, backoff(r), e);
        }
    }

    private Duration backoff(Running r) {
        return Duration.ofMillis(policy.backoffMillis(r.attempt(), ThreadLocalRandom.current().nextDouble()));
    }

    private void freeSlot() {
        ctx.gate().freed();
        ctx.progress().signal();
    }

    /** The error summary kept with the job: the exception, its first frames and its causes. */
    static String summary(Throwable e) {
        StringBuilder b = new StringBuilder(e.toString());
        StackTraceElement[] frames = e.getStackTrace();
        for (int i = 0; i < Math.min(SUMMARY_FRAMES, frames.length); i++) {
            b.append("\n\tat ").append(frames[i]);
        }
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            b.append("\nCaused by: ").append(c);
        }
        return b.toString();
    }

    /** {@code thrown}: what the handler threw (recorded on the attempt's span), or null. */
    private record Outcome(String error, boolean retryable, Duration backoff, Throwable thrown) {
        static final Outcome OK = new Outcome(null, false, Duration.ZERO, null);
    }
}
