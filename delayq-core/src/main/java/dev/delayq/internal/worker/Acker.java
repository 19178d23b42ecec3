package dev.delayq.internal.worker;

import dev.delayq.Ack;
import dev.delayq.ClaimOptions;
import dev.delayq.FailResult;
import dev.delayq.JobListener;
import dev.delayq.Lease;
import dev.delayq.WorkerMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends handler outcomes to Redis. Completions are batched: one complete script is in flight at a time,
 * everything that finishes meanwhile goes into the next one (each job still checked against its own
 * fencing token), and a completion waits at most {@code linger} for company, so a busy worker acknowledges
 * hundreds of jobs per call and a trickle of jobs costs a call per linger period, not per job (the wait
 * only delays the acknowledgement, never the next job). Failures go one by one. A call that fails is retried with backoff; the
 * lease keeper keeps renewing the job meanwhile, so a pending acknowledgement never loses the job.
 */
final class Acker {
    private static final Logger LOG = LoggerFactory.getLogger(Acker.class);
    private static final int MAX_BATCH = ClaimOptions.MAX_BATCH;

    private final WorkerContext ctx;
    private final String queue;
    private final InFlight inFlight;
    private final Scheduler timer;
    private final WorkerMetrics metrics;
    private final int defaultMaxAttempts;
    private final String worker;
    private final OutageLog outage;
    private final ConcurrentLinkedQueue<Running> pending = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean busy = new AtomicBoolean();
    private final AtomicInteger failing = new AtomicInteger();
    private final Runnable progress;
    private final JobListener listener;
    private final long lingerNanos;
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicBoolean lingering = new AtomicBoolean();
    private volatile boolean draining;

    /** The acknowledger of {@code ctx}'s worker; {@code timer} runs its linger and its retries. */
    Acker(WorkerContext ctx, Scheduler timer) {
        this.ctx = ctx;
        this.progress = ctx.progress()::signal;
        this.listener = ctx.listener();
        this.lingerNanos = Nanos.of(ctx.config().ackLinger());
        this.queue = ctx.queue();
        this.inFlight = ctx.inFlight();
        this.timer = timer;
        this.metrics = ctx.metrics();
        this.defaultMaxAttempts = ctx.config().retryPolicy().maxAttempts();
        this.worker = ctx.worker();
        this.outage = new OutageLog(LOG, "worker " + worker + " acknowledging jobs of " + queue, ctx.ticker());
    }

    void complete(Running r) {
        pending.add(r);
        if (queued.incrementAndGet() >= MAX_BATCH || lingerNanos == 0 || draining) {
            flush();
        } else if (lingering.compareAndSet(false, true)) {
            timer.schedule(() -> {
                lingering.set(false);
                flush();
            }, lingerNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** From now on, acknowledge at once (shutdown). */
    void drain() {
        draining = true;
        flush();
    }

    private void flush() {
        if (!busy.compareAndSet(false, true)) {
            return;
        }
        List<Running> batch = new ArrayList<>();
        Running r;
        while (batch.size() < MAX_BATCH && (r = pending.poll()) != null) {
            batch.add(r);
            queued.decrementAndGet();
        }
        if (batch.isEmpty()) {
            busy.set(false);
            if (!pending.isEmpty()) {
                flush();
            }
            return;
        }
        List<Lease> leases = new ArrayList<>(batch.size());
        Map<Lease, byte[]> results = null; // the results handlers left (most batches have none: nothing more is sent)
        for (Running j : batch) {
            leases.add(j.lease());
            byte[] result = j.resultBytes();
            if (result != null) {
                if (results == null) {
                    results = new HashMap<>();
                }
                results.put(j.lease(), result);
            }
        }
        Map<Lease, byte[]> kept = results;
        CompletableFuture<List<Ack>> call;
        try {
            call = ByPartition.call(ctx.parts(), leases, kept == null ? WorkerPartition::complete
                    : (part, ls) -> part.complete(ls, kept));
        } catch (Throwable e) { // async methods fail their future; this is only a guard against a stuck "busy"
            call = CompletableFuture.failedFuture(e);
        }
        call.whenComplete((acks, e) -> {
            boolean again = false;
            try {
                if (e != null) {
                    metrics.redisError(queue, "complete");
                    long wait = outage.failure(e);
                    batch.forEach(j -> j.resent = true); // the call may have applied: only its reply is known lost
                    pending.addAll(batch);
                    queued.addAndGet(batch.size());
                    timer.schedule(this::flush, wait, TimeUnit.MILLISECONDS);
                    return;
                }
                outage.success();
                for (int i = 0; i < batch.size(); i++) {
                    Running job = batch.get(i);
                    try {
                        completed(job, acks.get(i));
                    } finally {
                        inFlight.remove(job);
                    }
                }
                again = true;
            } catch (Throwable unexpected) { // never leave "busy" set: no acknowledgement would ever be sent again
                LOG.error("worker {}: unexpected error handling acknowledgements of queue {}", worker, queue, unexpected);
                again = e == null; // a failed call whose retry cannot be scheduled (shut down) is not retried at once
            } finally {
                busy.set(false);
                progress.run();
            }
            if (again && queued.get() > 0) {
                flush(); // what arrived while this call was in flight has waited long enough
            }
        });
    }

    private void completed(Running job, Ack ack) {
        if (ack == Ack.NOT_FOUND && job.resent) {
            // An earlier call whose reply was lost completed the job and, without done retention, deleted it: the
            // re-sent completion finds nothing. The job is done, not lost.
            LOG.debug("worker {}: re-sent completion of {} in queue {} found no job: the first call applied it", worker,
                    job, queue);
            ack = Ack.ALREADY_APPLIED;
        }
        if (ack.applied()) {
            metrics.completed(queue, job.finishedNanos - job.startNanos);
            listener.onOutcome(job, JobListener.Outcome.COMPLETED);
            JobLog.completed(job);
        } else {
            listener.onOutcome(job, JobListener.Outcome.REFUSED);
            metrics.leaseLost(queue);
            JobLog.leaseLost(job, "completion refused (" + ack + ")", null);
        }
    }

    void fail(Running r, String error, boolean retryable, Duration backoff) {
        failing.incrementAndGet();
        sendFail(r, error, retryable, backoff);
    }

    private void sendFail(Running r, String error, boolean retryable, Duration backoff) {
        CompletableFuture<FailResult> call;
        try {
            call = ctx.part(r.job.partition()).fail(r.lease(), error, retryable, backoff, defaultMaxAttempts);
        } catch (Throwable e) {
            call = CompletableFuture.failedFuture(e);
        }
        call.whenComplete((res, e) -> {
            if (e != null) {
                try {
                    r.resent = true;
                    metrics.redisError(queue, "fail");
                    timer.schedule(() -> sendFail(r, error, retryable, backoff), outage.failure(e), TimeUnit.MILLISECONDS);
                    return;
                } catch (Throwable unexpected) { // the timer is shut down: the lease expires and the job comes back
                    LOG.warn("worker {}: could not retry the failure of {} in queue {}: {}", worker, r, queue,
                            unexpected.toString());
                }
            } else {
                try {
                    outage.success();
                    failed(r, res, error);
                } catch (Throwable unexpected) {
                    LOG.error("worker {}: unexpected error handling the failure of {} in queue {}", worker, r,
                            queue, unexpected);
                }
            }
            inFlight.remove(r);
            failing.decrementAndGet();
            progress.run();
        });
    }

    /**
     * What Redis recorded for a failed run. Each failed attempt is logged here, once, after Redis answered (so the line
     * can say what comes next); a refused failure is a lost lease, not a failed attempt (the job runs again without
     * using up an attempt) and is logged as such, once per run.
     */
    private void failed(Running r, FailResult res, String error) {
        if (res.outcome() == FailResult.Outcome.NOT_FOUND && r.resent) {
            // The first call applied (its reply was lost) and the job is gone since: it went dead without dead
            // retention, or ran again elsewhere and finished. Not a lost lease; what Redis recorded is unknown here.
            JobLog.failed(r, JobLog.UNKNOWN, error);
            return;
        }
        if (res.outcome() == FailResult.Outcome.RETRY_SCHEDULED) {
            metrics.retried(queue);
            listener.onOutcome(r, JobListener.Outcome.RETRY_SCHEDULED);
            JobLog.failed(r, res.atMillis(), error);
        } else if (res.outcome() == FailResult.Outcome.DEAD) {
            metrics.dead(queue);
            listener.onOutcome(r, JobListener.Outcome.DEAD);
            JobLog.failed(r, JobLog.DEAD, error);
        } else {
            metrics.leaseLost(queue);
            listener.onOutcome(r, JobListener.Outcome.REFUSED);
            JobLog.leaseLost(r, "failure refused (" + res.outcome() + ")", error);
        }
    }

    /** Whether every outcome handed in has been acknowledged by Redis. */
    boolean idle() {
        return pending.isEmpty() && !busy.get() && failing.get() == 0;
    }
}
