package dev.delayq.micrometer;

import dev.delayq.ProducerMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Publishes the producer's measurements to a Micrometer registry, beside the worker's ({@link MicrometerMetrics}).
 * Micrometer is an optional dependency of delayq: only applications that use this class need it on the class path.
 *
 * <pre>{@code
 * DelayQ dq = DelayQ.builder().redis(uri).producerMetrics(new MicrometerProducerMetrics(registry)).build();
 * }</pre>
 *
 * <p>Meters, tagged {@code queue}:
 * <ul>
 *   <li>{@code delayq.jobs.enqueued} — counter: jobs created by enqueues of this client</li>
 *   <li>{@code delayq.jobs.duplicates} — counter: jobs an enqueue found there already (same id or dedupe key; nothing
 *       changed)</li>
 *   <li>{@code delayq.jobs.replaced} — counter: jobs an enqueue replaced (dedupe mode debounce: the scheduled job
 *       holding the dedupe key took the new payload, options and due time)</li>
 *   <li>{@code delayq.enqueue.errors} — counter, tag {@code error} (the exception's simple class name, e.g.
 *       {@code DelayQConnectionException}): enqueue calls that failed (Redis unreachable, timed out, refusing); input
 *       the call refused is the caller's mistake and not counted</li>
 *   <li>{@code delayq.enqueue.latency} — timer: one enqueue call (one job, or one {@code enqueueAll} list) from the call
 *       to Redis's reply, failed calls included; a percentile histogram</li>
 * </ul>
 */
public final class MicrometerProducerMetrics implements ProducerMetrics {
    private final MeterRegistry registry;
    private final Map<String, Meters> byQueue = new ConcurrentHashMap<>();

    /**
     * Publishes to {@code registry}.
     *
     * @throws IllegalArgumentException when {@code registry} is null
     */
    public MicrometerProducerMetrics(MeterRegistry registry) {
        if (registry == null) {
            throw new IllegalArgumentException("meter registry must not be null");
        }
        this.registry = registry;
    }

    /** One queue's meters, registered at its first enqueue (the error counters at their first error). */
    private final class Meters {
        final Tags tags;
        final Counter enqueued;
        final Counter duplicates;
        final Counter replaced;
        final Timer latency;
        final Map<String, Counter> errors = new ConcurrentHashMap<>();

        Meters(String queue) {
            tags = Tags.of("queue", queue);
            enqueued = Counter.builder("delayq.jobs.enqueued").description("jobs created by enqueues of this client")
                    .tags(tags).register(registry);
            duplicates = Counter.builder("delayq.jobs.duplicates")
                    .description("enqueued jobs found there already (same id or dedupe key): nothing changed")
                    .tags(tags).register(registry);
            replaced = Counter.builder("delayq.jobs.replaced")
                    .description("enqueued jobs that replaced the scheduled job holding their dedupe key (debounce)")
                    .tags(tags).register(registry);
            latency = Timer.builder("delayq.enqueue.latency").description("one enqueue call, from the call to Redis's reply")
                    .tags(tags).publishPercentileHistogram().register(registry);
        }

        Counter errors(String error) {
            return errors.computeIfAbsent(error, e -> Counter.builder("delayq.enqueue.errors")
                    .description("enqueue calls that failed (Redis unreachable, timed out, refusing)")
                    .tags(tags.and("error", e)).register(registry));
        }
    }

    private Meters of(String queue) {
        return byQueue.computeIfAbsent(queue, Meters::new);
    }

    @Override
    public void enqueued(String queue, int created, int duplicates, long nanos) {
        enqueued(queue, created, duplicates, 0, nanos);
    }

    @Override
    public void enqueued(String queue, int created, int duplicates, int replaced, long nanos) {
        Meters m = of(queue);
        if (replaced > 0) {
            m.replaced.increment(replaced);
        }
        if (created > 0) {
            m.enqueued.increment(created);
        }
        if (duplicates > 0) {
            m.duplicates.increment(duplicates);
        }
        m.latency.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void enqueueFailed(String queue, int jobs, Throwable error, long nanos) {
        Meters m = of(queue);
        m.errors(error.getClass().getSimpleName()).increment();
        m.latency.record(nanos, TimeUnit.NANOSECONDS);
    }
}
