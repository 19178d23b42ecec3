package dev.delayq.spring;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The producer's meters in a Micrometer registry: {@code delayq.jobs.enqueued} and {@code delayq.jobs.duplicates}
 * (tag {@code queue}) and {@code delayq.enqueue.errors} (tags {@code queue} and {@code error}, the exception's simple
 * class name, e.g. {@code DelayQConnectionException}).
 */
public class MicrometerProducerMetrics implements DelayqProducerMetrics {
    private final MeterRegistry registry;

    /** Counters in {@code registry}. */
    public MicrometerProducerMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void enqueued(String queue, boolean created) {
        String name = created ? "delayq.jobs.enqueued" : "delayq.jobs.duplicates";
        Counter.builder(name).description(created ? "jobs enqueued by this application"
                        : "enqueues that found the job's id already there (nothing enqueued)")
                .tag("queue", queue).register(registry).increment();
    }

    @Override
    public void enqueueFailed(String queue, RuntimeException error) {
        Counter.builder("delayq.enqueue.errors").description("enqueues that failed (Redis unreachable, timed out, refused)")
                .tag("queue", queue).tag("error", error.getClass().getSimpleName()).register(registry).increment();
    }
}
