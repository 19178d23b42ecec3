package dev.delayq.cli;

import dev.delayq.JobContext;
import dev.delayq.JobListener;
import dev.delayq.WorkerMetrics;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntSupplier;

/**
 * For {@code delayq work}: follows the worker's claims (metrics), runs (handler) and acknowledgements, to decide
 * when it is idle or has done its --max-jobs, counts what Redis recorded for the summary line, and prints a
 * status line per finished job when verbose.
 */
final class WorkActivity implements WorkerMetrics, ExecHandler.Listener, JobListener {
    /** Re-check while jobs wait for acknowledgement without a callback (e.g. handed back). */
    private static final long ACK_RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final java.io.PrintWriter status;
    private long lastNanos = System.nanoTime();
    private int running;
    private long finished;
    /** What Redis recorded, per {@link JobListener.Outcome}, and the leases this worker recovered. */
    private final java.util.concurrent.atomic.AtomicLongArray outcomes =
            new java.util.concurrent.atomic.AtomicLongArray(Outcome.values().length);
    private final java.util.concurrent.atomic.AtomicLong recovered = new java.util.concurrent.atomic.AtomicLong();
    /** Claims that failed (Redis unreachable, timed out or refusing), retried by the worker with backoff. */
    private final java.util.concurrent.atomic.AtomicLong failedClaims = new java.util.concurrent.atomic.AtomicLong();

    WorkActivity(java.io.PrintWriter status) {
        this.status = status;
    }

    void touch(int runningDelta, int finishedDelta) {
        lock.lock();
        try {
            lastNanos = System.nanoTime();
            running += runningDelta;
            finished += finishedDelta;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void signal() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Runs whose command has ended (or that ended without starting one). */
    long finishedRuns() {
        lock.lock();
        try {
            return finished;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void claimed(String queue, int n) {
        touch(0, 0);
    }

    @Override
    public void completed(String queue, long nanos) {
        signal(); // an acknowledgement: in-flight went down
    }

    @Override
    public void retried(String queue) {
        signal();
    }

    @Override
    public void dead(String queue) {
        signal();
    }

    @Override
    public void leaseLost(String queue) {
        signal();
    }

    @Override
    public void recovered(String queue, int n) {
        recovered.addAndGet(n);
    }

    @Override
    public void redisError(String queue, String operation) {
        if (operation.equals("claim")) {
            failedClaims.incrementAndGet();
        }
    }

    /** How many claims failed since the worker started. */
    long failedClaims() {
        return failedClaims.get();
    }

    /**
     * The summary printed when the worker stops: {@code 12 completed, 3 retried, 1 dead, 0 recovered, 2 handed
     * back} (and {@code N refused} when Redis refused outcomes of lost leases).
     */
    String summary() {
        long refused = outcomes.get(Outcome.REFUSED.ordinal());
        return outcomes.get(Outcome.COMPLETED.ordinal()) + " completed, "
                + outcomes.get(Outcome.RETRY_SCHEDULED.ordinal()) + " retried, "
                + outcomes.get(Outcome.DEAD.ordinal()) + " dead, "
                + recovered.get() + " recovered, "
                + outcomes.get(Outcome.HANDED_BACK.ordinal()) + " handed back"
                + (refused > 0 ? ", " + refused + " refused (lease lost)" : "");
    }

    @Override
    public void started(JobContext job) {
        touch(1, 0);
    }

    /**
     * With {@code --verbose}, a line per command that completed, was stopped or did not start: {@code job <id> attempt
     * <a>/<max>: ok in 12 ms}. A failed attempt has no such line: the worker logs it, once, when Redis has recorded it
     * ({@code WARN dev.delayq.jobs - job failed: ...}), so that no failure is printed twice.
     */
    @Override
    public void finished(JobContext job, String outcome, boolean failedAttempt) {
        if (status != null && !failedAttempt) {
            status.println("job " + job.id() + " attempt " + job.attempt() + "/" + job.maxAttempts() + ": " + outcome);
        }
        touch(-1, 1);
    }

    /**
     * What Redis recorded, one line per run with {@code --verbose}:
     * {@code completed|retry_scheduled|dead|refused|handed_back <id> attempt <a>/<max> token <token>}.
     * A {@code completed} line means Redis accepted that run's completion, fenced by that token.
     */
    @Override
    public void onOutcome(JobContext job, Outcome outcome) {
        outcomes.incrementAndGet(outcome.ordinal());
        if (status != null) {
            synchronized (status) {
                status.println(outcome.name().toLowerCase(java.util.Locale.ROOT) + " " + job.id() + " attempt "
                        + job.attempt() + "/" + job.maxAttempts() + " token " + job.token());
                status.flush();
            }
        }
    }

    /** Waits until {@code inFlight} is zero (every outcome acknowledged by Redis), at most {@code limit}. */
    void awaitDrained(IntSupplier inFlight, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        lock.lock();
        try {
            long left;
            while (inFlight.getAsInt() > 0 && (left = deadline - System.nanoTime()) > 0) {
                changed.awaitNanos(Math.min(left, ACK_RECHECK_NANOS));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Blocks until {@code maxJobs} runs have finished or, with {@code idle}, nothing was claimed, running or
     * unacknowledged for that long; without either, until the JVM exits.
     *
     * @return {@code true} when it stopped for idleness
     */
    boolean awaitStop(Duration idle, Long maxJobs, IntSupplier inFlight) throws InterruptedException {
        lock.lock();
        try {
            while (true) {
                if (maxJobs != null && finished >= maxJobs) {
                    return false;
                }
                if (idle == null) {
                    changed.await();
                    continue;
                }
                long quiet = System.nanoTime() - lastNanos;
                long left = idle.toNanos() - quiet;
                if (left <= 0 && running == 0 && inFlight.getAsInt() == 0) {
                    return true;
                }
                changed.awaitNanos(left > 0 ? left : ACK_RECHECK_NANOS);
            }
        } finally {
            lock.unlock();
        }
    }
}
