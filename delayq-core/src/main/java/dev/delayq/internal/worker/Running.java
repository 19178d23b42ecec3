package dev.delayq.internal.worker;

import dev.delayq.ClaimedJob;
import dev.delayq.JobContext;
import dev.delayq.internal.base.ResultLimit;
import dev.delayq.Lease;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** A job this worker holds, from claim to acknowledgement; the handler sees it as its {@link JobContext}. */
final class Running implements JobContext {
    private static final int WAITING = 0;
    private static final int STARTED = 1;
    private static final int HANDED_BACK_UNSTARTED = 2;
    private static final int RETURNED = 3;
    private static final int TIMED_OUT = 4;

    final ClaimedJob job;
    final String queue;
    final long claimedNanos;
    volatile long leaseUntilMillis;
    volatile boolean lost;
    volatile boolean released;
    volatile boolean started;
    /**
     * The one decision of each fork in a run's life: started or handed back before it started; then ended by its
     * handler returning or by its timeout. Whoever wins sends the outcome and frees the slot; the other stands down.
     */
    private final AtomicInteger phase = new AtomicInteger(WAITING);
    volatile boolean finished;
    /** The handler has returned and its outcome is on its way to Redis. */
    volatile boolean acking;
    /** The outcome was sent again after a call failed: that call may have applied, only its reply was lost. */
    volatile boolean resent;
    /** The loss of this run's lease has been logged (by whichever part learnt it first: {@link JobLog#leaseLost}). */
    private final AtomicBoolean lossReported = new AtomicBoolean();
    volatile long startNanos;
    volatile long finishedNanos;
    /** The handler's thread while it runs this job (guarded by this object's monitor). */
    private Thread thread;

    /** Sends a job's progress to Redis, fenced by its lease. */
    interface ProgressSink {
        java.util.concurrent.CompletableFuture<dev.delayq.Ack> send(Lease lease, String progress);
    }

    private final ProgressSink progressSink;

    /** Reads the results of a job's parents (one script call). */
    interface ParentReader {
        java.util.concurrent.CompletableFuture<java.util.Map<String, byte[]>> read(Lease lease, String id);
    }

    private final ParentReader parentReader;
    /** What the handler left for its job ({@link #result(byte[])}), sent with the completion. */
    private volatile byte[] result;
    /** The parents' results, read on the first {@link #parentResults()} of this attempt. */
    private volatile java.util.Map<String, byte[]> parentResults;

    Running(String queue, ClaimedJob job, long claimedNanos, ProgressSink progressSink) {
        this(queue, job, claimedNanos, progressSink, (lease, id) -> java.util.concurrent.CompletableFuture.completedFuture(
                java.util.Map.of()));
    }

    Running(String queue, ClaimedJob job, long claimedNanos, ProgressSink progressSink, ParentReader parentReader) {
        this.queue = queue;
        this.job = job;
        this.claimedNanos = claimedNanos;
        this.leaseUntilMillis = job.leaseUntilMillis();
        this.progressSink = progressSink;
        this.parentReader = parentReader;
    }

    @Override
    public void result(byte[] result) {
        this.result = result == null ? null : ResultLimit.checked(job.id(), result).clone();
    }

    /** The result the handler left, or null. */
    byte[] resultBytes() {
        return result;
    }

    @Override
    public java.util.Map<String, byte[]> parentResults() {
        java.util.Map<String, byte[]> got = parentResults;
        if (got == null) {
            try {
                got = parentReader.read(lease(), job.id()).join();
            } catch (java.util.concurrent.CompletionException e) {
                if (e.getCause() instanceof RuntimeException re) {
                    throw re;
                }
                throw e;
            }
            parentResults = got;
        }
        return got;
    }

    @Override
    public java.util.concurrent.CompletableFuture<dev.delayq.Ack> progress(int percent) {
        if (percent < 0 || percent > 100) {
            throw new IllegalArgumentException("progress is " + percent + ": a percentage must be between 0 and 100");
        }
        return progressSink.send(lease(), Integer.toString(percent));
    }

    @Override
    public java.util.concurrent.CompletableFuture<dev.delayq.Ack> progress(String progress) {
        return progressSink.send(lease(), progress);
    }

    Lease lease() {
        return job.lease();
    }

    /** Claims the start of this job on the current thread; false when it was handed back first (shutdown). */
    boolean tryStart() {
        synchronized (this) {
            thread = Thread.currentThread();
        }
        if (!phase.compareAndSet(WAITING, STARTED)) {
            detach();
            return false;
        }
        started = true;
        return true;
    }

    /** Hands this job back unless its handler started first; true when it was handed back. */
    boolean tryHandBackUnstarted() {
        if (!phase.compareAndSet(WAITING, HANDED_BACK_UNSTARTED)) {
            return false;
        }
        released = true;
        return true;
    }

    /** The handler returned; true unless the timeout ended the run first (then its outcome was sent already). */
    boolean tryReturn() {
        return phase.compareAndSet(STARTED, RETURNED);
    }

    /** The timeout ends the run; true unless the handler returned first. */
    boolean tryTimeOut() {
        return phase.compareAndSet(STARTED, TIMED_OUT);
    }

    /** The handler's thread leaves this job: from now on {@link #interrupt()} cannot reach it. */
    synchronized void detach() {
        thread = null;
    }

    /**
     * Interrupts the handler, only while its thread still runs this job (never a pooled thread that has moved on to
     * another job). The thread clears any interrupt left over when it leaves the job.
     */
    synchronized void interrupt() {
        if (thread != null) {
            thread.interrupt();
        }
    }

    void markLost() {
        lost = true;
    }

    /** True the first time only: the loss of this run's lease is logged once. */
    boolean firstLossReport() {
        return lossReported.compareAndSet(false, true);
    }

    @Override
    public String queue() {
        return queue;
    }

    @Override
    public String id() {
        return job.id();
    }

    @Override
    public String name() {
        return job.name();
    }

    @Override
    public int stalls() {
        return job.stalls();
    }

    @Override
    public byte[] payload() {
        return job.payload();
    }

    @Override
    public String payloadUtf8() {
        return job.payloadUtf8();
    }

    @Override
    public int attempt() {
        return job.attempt();
    }

    @Override
    public int maxAttempts() {
        return job.maxAttempts();
    }

    @Override
    public Instant dueAt() {
        return job.dueAt();
    }

    @Override
    public long token() {
        return job.token();
    }

    @Override
    public String lastError() {
        return job.lastError();
    }

    @Override
    public String traceparent() {
        return job.traceparent();
    }

    @Override
    public String tracestate() {
        return job.tracestate();
    }

    @Override
    public String group() {
        return job.group();
    }

    @Override
    public boolean leaseLost() {
        return lost || released || phase.get() == TIMED_OUT;
    }

    @Override
    public String toString() {
        return "job '" + job.id() + "' (attempt " + job.attempt() + ", token " + job.token() + ")";
    }
}
