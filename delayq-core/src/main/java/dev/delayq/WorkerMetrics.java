package dev.delayq;

import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * Receives the worker's measurements. The default does nothing; {@code dev.delayq.micrometer.MicrometerMetrics}
 * publishes them to a Micrometer registry (Micrometer is an optional dependency). Calls come from worker
 * threads and must not block. A method that throws is isolated: the worker logs it once, counts it
 * ({@link Worker#callbackFailures()}) and goes on.
 *
 * <p>One instance may serve several workers: each calls {@link #forWorker} once when it starts and then reports
 * only to what that returned (by default this same object), and calls {@link #unbind} on it when it has closed.
 */
public interface WorkerMetrics {
    /** Records nothing. */
    WorkerMetrics NONE = new WorkerMetrics() {
    };

    /**
     * Called once when a worker starts, before any other call: the metrics that worker reports to. A sink that tells
     * workers apart returns a view that tags its figures with {@code worker} (as {@code MicrometerMetrics} does); the
     * default returns this object, shared by every worker.
     *
     * @param queue  the queue's name
     * @param worker the worker's name ({@link Worker#name()})
     */
    default WorkerMetrics forWorker(String queue, String worker) {
        return this;
    }

    /** Called once when a worker starts, with live views for gauges. */
    default void bind(String queue, IntSupplier inFlight, Supplier<QueueStats> stats) {
    }

    /** {@code n} jobs were leased. */
    default void claimed(String queue, int n) {
    }

    /**
     * A claim was cut short by the queue's rate or concurrency limit ({@link QueueInspector#limits}): the worker waits
     * for the limit to free a grant before it claims again.
     */
    default void limited(String queue) {
    }

    /** A handler started {@code lagMillis} after the job's due time. */
    default void started(String queue, double lagMillis) {
    }

    /** A job completed; its handler ran for {@code nanos}. */
    default void completed(String queue, long nanos) {
    }

    /** A handler failed after running for {@code nanos}. */
    default void failed(String queue, long nanos) {
    }

    /** A failed job was rescheduled. */
    default void retried(String queue) {
    }

    /** A job went to dead. */
    default void dead(String queue) {
    }

    /** {@code n} expired leases were recovered by this worker. */
    default void recovered(String queue, int n) {
    }

    /** A lease was lost, or a completion or failure was refused as stale. */
    default void leaseLost(String queue) {
    }

    /**
     * Called once when the worker that {@link #bind bound} these metrics has closed: drop what it registered (a
     * closed worker's gauges must not keep it reachable nor report stale figures).
     */
    default void unbind(String queue) {
    }

    /** A user callback of the worker threw and was isolated ({@code kind}: listener, executor). */
    default void callbackFailed(String queue, String kind) {
    }

    /** A Redis call of the worker failed ({@code operation}: claim, complete, fail, renew, purge). */
    default void redisError(String queue, String operation) {
    }
}
