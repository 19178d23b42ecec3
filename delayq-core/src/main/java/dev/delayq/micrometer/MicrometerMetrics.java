package dev.delayq.micrometer;

import dev.delayq.QueueStats;
import dev.delayq.WorkerMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
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
 * <p>One instance serves any number of workers: each worker's meters carry the tags {@code queue} and {@code worker}
 * (its {@link dev.delayq.Worker#name() name}), so two workers of one queue report their own figures (sum them per
 * queue; {@code delayq.queue.depth} is the same figure in every worker of a queue: take the max), and a worker's
 * meters are removed from the registry when it closes.
 *
 * <p>Meters:
 * <ul>
 *   <li>{@code delayq.jobs.claimed}, {@code delayq.jobs.completed}, {@code delayq.jobs.failed},
 *       {@code delayq.jobs.retried}, {@code delayq.jobs.dead}, {@code delayq.jobs.recovered},
 *       {@code delayq.leases.lost} — counters</li>
 *   <li>{@code delayq.claims.limited} — counter: claims cut short by the queue's rate or concurrency limit (the worker
 *       then waits for the limit's window)</li>
 *   <li>{@code delayq.dispatch.lag} — timer: handler start minus due time, on Redis's clock</li>
 *   <li>{@code delayq.processing.time} — timer: handler run time (completed and failed)</li>
 *   <li>{@code delayq.jobs.in_flight} — gauge: jobs leased by this worker and not yet acknowledged</li>
 *   <li>{@code delayq.queue.depth} — gauge, tag {@code state} = scheduled, processing, done, dead; read from
 *       Redis at most once per {@code depthRefresh} (default 10 s), only when the registry asks</li>
 *   <li>{@code delayq.queue.past_retention} — gauge, read with the depth: done and dead jobs kept past their
 *       retention, waiting for the purge (growing without end: the purge does not keep up); NaN until a worker has
 *       purged the queue</li>
 *   <li>{@code delayq.redis.errors} — counter, tag {@code operation}: failed Redis calls of the worker</li>
 *   <li>{@code delayq.callbacks.failed} — counter, tag {@code kind} (listener, executor): user callbacks that threw
 *       and were isolated</li>
 * </ul>
 */
public final class MicrometerMetrics implements WorkerMetrics {
    private final MeterRegistry registry;
    private final Duration depthRefresh;
    /** Meters of calls made on this object directly (not through a worker's {@link #forWorker} view): tag queue only. */
    private final Map<String, Meters> direct = new ConcurrentHashMap<>();

    /** Publishes to {@code registry}, refreshing queue depth at most every 10 s. */
    public MicrometerMetrics(MeterRegistry registry) {
        this(registry, Duration.ofSeconds(10));
    }

    /** Publishes to {@code registry}, refreshing queue depth at most every {@code depthRefresh}. */
    public MicrometerMetrics(MeterRegistry registry, Duration depthRefresh) {
        if (registry == null) {
            throw new IllegalArgumentException("meter registry must not be null");
        }
        if (depthRefresh == null || depthRefresh.isNegative()) {
            throw new IllegalArgumentException("depth refresh is " + depthRefresh + ": it must be zero or positive");
        }
        this.registry = registry;
        this.depthRefresh = depthRefresh;
    }

    /** The meters of worker {@code worker} of {@code queue}, tagged with both; removed by {@link #unbind} on close. */
    @Override
    public WorkerMetrics forWorker(String queue, String worker) {
        return new Meters(Tags.of("queue", queue, "worker", worker));
    }

    private Meters of(String queue) {
        return direct.computeIfAbsent(queue, q -> new Meters(Tags.of("queue", q)));
    }

    /** One worker's meters (or one queue's, for direct calls), and every meter registered for them. */
    private final class Meters implements WorkerMetrics {
        final Tags tags;
        final Map<Meter.Id, Meter> registered = new ConcurrentHashMap<>();
        final Counter claimed;
        final Counter completed;
        final Counter failed;
        final Counter retried;
        final Counter dead;
        final Counter recovered;
        final Counter leaseLost;
        final Counter limited;
        final Timer lag;
        final Timer processing;

        Meters(Tags tags) {
            this.tags = tags;
            claimed = counter("delayq.jobs.claimed", tags);
            completed = counter("delayq.jobs.completed", tags);
            failed = counter("delayq.jobs.failed", tags);
            retried = counter("delayq.jobs.retried", tags);
            dead = counter("delayq.jobs.dead", tags);
            recovered = counter("delayq.jobs.recovered", tags);
            leaseLost = counter("delayq.leases.lost", tags);
            limited = counter("delayq.claims.limited", tags);
            lag = keep(Timer.builder("delayq.dispatch.lag").description("handler start minus due time (Redis clock)")
                    .tags(tags).publishPercentileHistogram().register(registry));
            processing = keep(Timer.builder("delayq.processing.time").description("handler run time")
                    .tags(tags).publishPercentileHistogram().register(registry));
        }

        private <M extends Meter> M keep(M meter) {
            registered.put(meter.getId(), meter);
            return meter;
        }

        private Counter counter(String name, Tags t) {
            return keep(Counter.builder(name).tags(t).register(registry));
        }

        @Override
        public void bind(String queue, IntSupplier inFlight, Supplier<QueueStats> stats) {
            // Gauges hold their state weakly by default; these suppliers live nowhere else, so hold them strongly.
            keep(Gauge.builder("delayq.jobs.in_flight", inFlight, s -> s.getAsInt()).tags(tags).strongReference(true)
                    .register(registry));
            CachedStats cache = new CachedStats(stats, depthRefresh);
            depth("scheduled", cache, QueueStats::scheduled);
            depth("processing", cache, QueueStats::processing);
            depth("done", cache, QueueStats::done);
            depth("dead", cache, QueueStats::dead);
            keep(Gauge.builder("delayq.queue.past_retention", cache,
                    c -> c.read(st -> st.pastRetention() >= 0 ? st.pastRetention() : Double.NaN))
                    .tags(tags).strongReference(true).register(registry));
        }

        private void depth(String state, CachedStats cache, ToDoubleFunction<QueueStats> f) {
            keep(Gauge.builder("delayq.queue.depth", cache, c -> c.read(f)).tags(tags.and("state", state))
                    .strongReference(true).register(registry));
        }

        @Override
        public void unbind(String queue) {
            registered.values().forEach(registry::remove);
            registered.clear();
        }

        @Override
        public void claimed(String queue, int n) {
            claimed.increment(n);
        }

        @Override
        public void limited(String queue) {
            limited.increment();
        }

        @Override
        public void started(String queue, double lagMillis) {
            lag.record((long) (lagMillis * 1_000_000), TimeUnit.NANOSECONDS);
        }

        @Override
        public void completed(String queue, long nanos) {
            completed.increment();
            processing.record(nanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public void failed(String queue, long nanos) {
            failed.increment();
            processing.record(nanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public void retried(String queue) {
            retried.increment();
        }

        @Override
        public void dead(String queue) {
            dead.increment();
        }

        @Override
        public void recovered(String queue, int n) {
            recovered.increment(n);
        }

        @Override
        public void leaseLost(String queue) {
            leaseLost.increment();
        }

        @Override
        public void redisError(String queue, String operation) {
            counter("delayq.redis.errors", tags.and("operation", operation)).increment();
        }

        @Override
        public void callbackFailed(String queue, String kind) {
            counter("delayq.callbacks.failed", tags.and("kind", kind)).increment();
        }
    }

    /** JobQueue stats read from Redis at most once per refresh period, and only when a gauge is read. */
    private static final class CachedStats {
        private final Supplier<QueueStats> source;
        private final long refreshNanos;
        private QueueStats last;
        private long readAt;

        CachedStats(Supplier<QueueStats> source, Duration refresh) {
            this.source = source;
            this.refreshNanos = refresh.compareTo(Duration.ofDays(365)) > 0 ? Duration.ofDays(365).toNanos() : refresh.toNanos();
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
    public void bind(String queue, IntSupplier inFlight, Supplier<QueueStats> stats) {
        of(queue).bind(queue, inFlight, stats);
    }

    @Override
    public void unbind(String queue) {
        Meters m = direct.remove(queue);
        if (m != null) {
            m.unbind(queue);
        }
    }

    @Override
    public void claimed(String queue, int n) {
        of(queue).claimed(queue, n);
    }

    @Override
    public void limited(String queue) {
        of(queue).limited(queue);
    }

    @Override
    public void started(String queue, double lagMillis) {
        of(queue).started(queue, lagMillis);
    }

    @Override
    public void completed(String queue, long nanos) {
        of(queue).completed(queue, nanos);
    }

    @Override
    public void failed(String queue, long nanos) {
        of(queue).failed(queue, nanos);
    }

    @Override
    public void retried(String queue) {
        of(queue).retried(queue);
    }

    @Override
    public void dead(String queue) {
        of(queue).dead(queue);
    }

    @Override
    public void recovered(String queue, int n) {
        of(queue).recovered(queue, n);
    }

    @Override
    public void leaseLost(String queue) {
        of(queue).leaseLost(queue);
    }

    @Override
    public void redisError(String queue, String operation) {
        of(queue).redisError(queue, operation);
    }

    @Override
    public void callbackFailed(String queue, String kind) {
        of(queue).callbackFailed(queue, kind);
    }
}
