package dev.delayq.micrometer;

import dev.delayq.QueueStats;
import dev.delayq.WorkerMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * Publishes worker measurements to a Micrometer registry. Micrometer is an optional dependency of
 * delayq: only applications that use this class need it on the class path.
 *
 * <pre>{@code
 * Worker.builder(queue, handler).metrics(new MicrometerMetrics(registry)).build();
 * }</pre>
 *
 * <p>Meters (all tagged {@code queue}):
 * <ul>
 *   <li>{@code delayq.jobs.claimed}, {@code delayq.jobs.completed}, {@code delayq.jobs.failed},
 *       {@code delayq.jobs.retried}, {@code delayq.jobs.dead}, {@code delayq.jobs.recovered},
 *       {@code delayq.leases.lost} — counters</li>
 *   <li>{@code delayq.dispatch.lag} — timer: handler start minus due time, on Redis's clock</li>
 *   <li>{@code delayq.processing.time} — timer: handler run time (completed and failed)</li>
 *   <li>{@code delayq.jobs.in_flight} — gauge: jobs leased by this worker and not yet acknowledged</li>
 *   <li>{@code delayq.queue.depth} — gauge, tag {@code state} = scheduled, processing, done, dead; read from
 *       Redis at most once per {@code depthRefresh} (default 10 s), only when the registry asks</li>
 *   <li>{@code delayq.redis.errors} — counter, tag {@code operation}: failed Redis calls of the worker</li>
 * </ul>
 */
public final class MicrometerMetrics implements WorkerMetrics {
    private final MeterRegistry registry;
    private final Duration depthRefresh;
    private final Map<String, Meters> meters = new ConcurrentHashMap<>();

    /** Publishes to {@code registry}, refreshing queue depth at most every 10 s. */
    public MicrometerMetrics(MeterRegistry registry) {
        this(registry, Duration.ofSeconds(10));
    }

    /** Publishes to {@code registry}, refreshing queue depth at most every {@code depthRefresh}. */
    public MicrometerMetrics(MeterRegistry registry, Duration depthRefresh) {
        if (registry == null) {
            throw new IllegalArgumentException("meter registry must not be null");
        }
        this.registry = registry;
        this.depthRefresh = depthRefresh;
    }

    private final class Meters {
        final Counter claimed;
        final Counter completed;
        final Counter failed;
        final Counter retried;
        final Counter dead;
        final Counter recovered;
        final Counter leaseLost;
        final Timer lag;
        final Timer processing;
        final Tags tags;

        Meters(String queue) {
            tags = Tags.of("queue", queue);
            claimed = Counter.builder("delayq.jobs.claimed").tags(tags).register(registry);
            completed = Counter.builder("delayq.jobs.completed").tags(tags).register(registry);
            failed = Counter.builder("delayq.jobs.failed").tags(tags).register(registry);
            retried = Counter.builder("delayq.jobs.retried").tags(tags).register(registry);
            dead = Counter.builder("delayq.jobs.dead").tags(tags).register(registry);
            recovered = Counter.builder("delayq.jobs.recovered").tags(tags).register(registry);
            leaseLost = Counter.builder("delayq.leases.lost").tags(tags).register(registry);
            lag = Timer.builder("delayq.dispatch.lag").description("handler start minus due time (Redis clock)")
                    .tags(tags).publishPercentileHistogram().register(registry);
            processing = Timer.builder("delayq.processing.time").description("handler run time")
                    .tags(tags).publishPercentileHistogram().register(registry);
        }
    }

    private Meters of(String queue) {
        return meters.computeIfAbsent(queue, Meters::new);
    }

    @Override
    public void bind(String queue, IntSupplier inFlight, Supplier<QueueStats> stats) {
        Tags tags = of(queue).tags;
        // Gauges hold their state weakly by default; these suppliers live nowhere else, so hold them strongly.
        Gauge.builder("delayq.jobs.in_flight", inFlight, s -> s.getAsInt()).tags(tags).strongReference(true).register(registry);
        CachedStats cache = new CachedStats(stats, depthRefresh);
        depth(tags, "scheduled", cache, QueueStats::scheduled);
        depth(tags, "processing", cache, QueueStats::processing);
        depth(tags, "done", cache, QueueStats::done);
        depth(tags, "dead", cache, QueueStats::dead);
    }

    private void depth(Tags tags, String state, CachedStats cache, ToDoubleFunction<QueueStats> f) {
        Gauge.builder("delayq.queue.depth", cache, c -> c.read(f)).tags(tags.and("state", state)).strongReference(true)
                .register(registry);
    }

    /** JobQueue stats read from Redis at most once per refresh period, and only when a gauge is read. */
    private static final class CachedStats {
        private final Supplier<QueueStats> source;
        private final long refreshNanos;
        private QueueStats last;
        private long readAt;

        CachedStats(Supplier<QueueStats> source, Duration refresh) {
            this.source = source;
            this.refreshNanos = refresh.toNanos();
        }

        synchronized double read(ToDoubleFunction<QueueStats> f) {
            long now = System.nanoTime();
            if (last == null || now - readAt > refreshNanos) {
                try {
                    last = source.get();
                    readAt = now;
                } catch (RuntimeException e) {
                    return last == null ? Double.NaN : f.applyAsDouble(last);
                }
            }
            return f.applyAsDouble(last);
        }
    }

    @Override
    public void claimed(String queue, int n) {
        of(queue).claimed.increment(n);
    }

    @Override
    public void started(String queue, double lagMillis) {
        of(queue).lag.record((long) (lagMillis * 1_000_000), TimeUnit.NANOSECONDS);
    }

    @Override
    public void completed(String queue, long nanos) {
        Meters m = of(queue);
        m.completed.increment();
        m.processing.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void failed(String queue, long nanos) {
        Meters m = of(queue);
        m.failed.increment();
        m.processing.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void retried(String queue) {
        of(queue).retried.increment();
    }

    @Override
    public void dead(String queue) {
        of(queue).dead.increment();
    }

    @Override
    public void recovered(String queue, int n) {
        of(queue).recovered.increment(n);
    }

    @Override
    public void leaseLost(String queue) {
        of(queue).leaseLost.increment();
    }

    @Override
    public void redisError(String queue, String operation) {
        Counter.builder("delayq.redis.errors").tags(of(queue).tags.and("operation", operation)).register(registry).increment();
    }
}
