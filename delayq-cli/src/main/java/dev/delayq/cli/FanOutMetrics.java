package dev.delayq.cli;

import dev.delayq.QueueStats;
import dev.delayq.WorkerMetrics;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * Hands every measurement of a worker to several receivers, in order: {@code work} follows its own activity and,
 * with {@code --metrics-port}, publishes the same measurements to Prometheus.
 */
final class FanOutMetrics implements WorkerMetrics {
    private final List<WorkerMetrics> receivers;

    FanOutMetrics(List<WorkerMetrics> receivers) {
        this.receivers = List.copyOf(receivers);
    }

    @Override
    public void bind(String queue, IntSupplier inFlight, Supplier<QueueStats> stats) {
        receivers.forEach(r -> r.bind(queue, inFlight, stats));
    }

    @Override
    public void claimed(String queue, int n) {
        receivers.forEach(r -> r.claimed(queue, n));
    }

    @Override
    public void limited(String queue) {
        receivers.forEach(r -> r.limited(queue));
    }

    @Override
    public void started(String queue, double lagMillis) {
        receivers.forEach(r -> r.started(queue, lagMillis));
    }

    @Override
    public void completed(String queue, long nanos) {
        receivers.forEach(r -> r.completed(queue, nanos));
    }

    @Override
    public void failed(String queue, long nanos) {
        receivers.forEach(r -> r.failed(queue, nanos));
    }

    @Override
    public void retried(String queue) {
        receivers.forEach(r -> r.retried(queue));
    }

    @Override
    public void dead(String queue) {
        receivers.forEach(r -> r.dead(queue));
    }

    @Override
    public void recovered(String queue, int n) {
        receivers.forEach(r -> r.recovered(queue, n));
    }

    @Override
    public void leaseLost(String queue) {
        receivers.forEach(r -> r.leaseLost(queue));
    }

    @Override
    public void redisError(String queue, String operation) {
        receivers.forEach(r -> r.redisError(queue, operation));
    }
}
