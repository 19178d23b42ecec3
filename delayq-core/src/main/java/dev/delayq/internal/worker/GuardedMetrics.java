package dev.delayq.internal.worker;

import dev.delayq.QueueStats;
import dev.delayq.WorkerMetrics;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * The user's {@link WorkerMetrics}, each call isolated by {@link Callbacks}: a sink that throws never harms a loop.
 * The worker's parts hold this object from construction; the sink it forwards to is the worker's own view
 * ({@link WorkerMetrics#forWorker}), set when the worker starts.
 */
final class GuardedMetrics implements WorkerMetrics {
    private volatile WorkerMetrics m;
    private final Callbacks callbacks;

    GuardedMetrics(WorkerMetrics m, Callbacks callbacks) {
        this.m = m;
        this.callbacks = callbacks;
    }

    /** From now on, forwards to {@code target}. */
    void forwardTo(WorkerMetrics target) {
        m = target;
    }

    private void failed(Throwable e) {
        callbacks.failed("metrics", e);
    }

    @Override
    public void bind(String queue, IntSupplier inFlight, Supplier<QueueStats> stats) {
        try {
            m.bind(queue, inFlight, stats);
        } catch (Throwable e) {
            failed(e);
        }
    }

    @Override
    public void unbind(String queue) {
        try {
            m.unbind(queue);
        } catch (Throwable e) {
            failed(e);
        }
    }

    @Override
    public void claimed(String queue, int n) {
        try {
            m.claimed(queue, n);
        } catch (Throwable e) {
            failed(e);
        }
    }

    @Override
    public void limited(String queue) {
        try {
            m.limited(queue);
        } catch (Throwable e) {
            failed(e);
        }
    }

    @Override
    public void started(String queue, double lagMillis) {
        try {
            m.started(queue, lagMillis);
        } catch (Throwable e) {
            failed(e);
        }
    }

    @Override
    public void completed(String queue, long nanos) {
        try {
            m.completed(queue, nanos);
        } catch (Throwable e) {
            failed(e);
        }
    }

    @Override
    public void failed(String queue, long nanos) {
        try {
            m.failed(queue, nanos);
        } catch (Throwable e) {
            failed(e);
        }
    }

    @Override
    public void retried(String queue) {
        try {
            m.retried(queue);
        } catch (Throwable e) {
            failed(e);
        }
    }

    @Override
    public void dead(String queue) {
        try {
            m.dead(queue);
        } catch (Throwable e) {
            failed(e);
        }
    }

    @Override
    public void recovered(String queue, int n) {
        try {
            m.recovered(queue, n);
        } catch (Throwable e) {
            failed(e);
        }
    }

    @Override
    public void leaseLost(String queue) {
        try {
            m.leaseLost(queue);
        } catch (Throwable e) {
            failed(e);
        }
    }

    @Override
    public void redisError(String queue, String operation) {
        try {
            m.redisError(queue, operation);
        } catch (Throwable e) {
            failed(e);
        }
    }

    @Override
    public void callbackFailed(String queue, String kind) {
        try {
            m.callbackFailed(queue, kind);
        } catch (Throwable e) {
            failed(e);
        }
    }
}
