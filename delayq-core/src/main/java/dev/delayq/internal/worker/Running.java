package dev.delayq.internal.worker;

import dev.delayq.ClaimedJob;
import dev.delayq.JobContext;
import dev.delayq.Lease;
import java.time.Instant;

/** A job this worker holds, from claim to acknowledgement; the handler sees it as its {@link JobContext}. */
final class Running implements JobContext {
    final ClaimedJob job;
    final String queue;
    final long claimedNanos;
    volatile long leaseUntilMillis;
    volatile boolean lost;
    volatile boolean released;
    volatile boolean started;
    /** 0 waiting to start, 1 started, 2 handed back before it started: the one decision between those two. */
    private final java.util.concurrent.atomic.AtomicInteger phase = new java.util.concurrent.atomic.AtomicInteger();
    volatile boolean finished;
    /** The handler has returned and its outcome is on its way to Redis. */
    volatile boolean acking;
    /** The outcome was sent again after a call failed: that call may have applied, only its reply was lost. */
    volatile boolean resent;
    volatile long startNanos;
    volatile long finishedNanos;
    volatile Thread thread;

    Running(String queue, ClaimedJob job, long claimedNanos) {
        this.queue = queue;
        this.job = job;
        this.claimedNanos = claimedNanos;
        this.leaseUntilMillis = job.leaseUntilMillis();
    }

    Lease lease() {
        return job.lease();
    }

    /** Claims the start of this job; false when it was handed back first (shutdown). */
    boolean tryStart() {
        if (!phase.compareAndSet(0, 1)) {
            return false;
        }
        started = true;
        return true;
    }

    /** Hands this job back unless its handler started first; true when it was handed back. */
    boolean tryHandBackUnstarted() {
        if (!phase.compareAndSet(0, 2)) {
            return false;
        }
        released = true;
        return true;
    }

    void markLost() {
        lost = true;
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
    public boolean leaseLost() {
        return lost || released;
    }

    @Override
    public String toString() {
        return "job '" + job.id() + "' (attempt " + job.attempt() + ", token " + job.token() + ")";
    }
}
