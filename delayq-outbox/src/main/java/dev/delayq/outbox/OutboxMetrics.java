package dev.delayq.outbox;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * An {@link OutboxRelay}'s figures as Micrometer meters, tagged with the table and the relay's name:
 * {@code delayq.outbox.pending} (rows waiting), {@code delayq.outbox.oldest.age} (seconds, the oldest row's age),
 * {@code delayq.outbox.relayed}, {@code delayq.outbox.duplicates}, {@code delayq.outbox.failed} (moved aside) and
 * {@code delayq.outbox.errors} (failed rounds). The two gauges count the table: their reading is cached for
 * {@code refresh} (default 5 s) so that a busy scraper does not turn into a load on the database.
 */
public final class OutboxMetrics implements MeterBinder {
    private final OutboxRelay relay;
    private final Duration refresh;
    private final Clock clock;
    private OutboxStatus cached;
    private Instant cachedAt = Instant.EPOCH;

    /** The meters of {@code relay}, the table's gauges read at most every 5 s. */
    public OutboxMetrics(OutboxRelay relay) {
        this(relay, Duration.ofSeconds(5), Clock.systemUTC());
    }

    /**
     * The meters of {@code relay}, the table's gauges read at most every {@code refresh} (0 to 1 h) by {@code clock}.
     *
     * @throws IllegalArgumentException when an argument is null or {@code refresh} out of range
     */
    public OutboxMetrics(OutboxRelay relay, Duration refresh, Clock clock) {
        if (relay == null || clock == null) {
            throw new IllegalArgumentException("relay and clock must not be null");
        }
        if (refresh == null || refresh.isNegative() || refresh.compareTo(Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException("refresh " + refresh + " is invalid: use 0 to 1 h");
        }
        this.relay = relay;
        this.refresh = refresh;
        this.clock = clock;
    }

    /**
     * Registers the meters. The gauges hold this binder strongly (Micrometer would otherwise let it be collected, and
     * the gauges read NaN), the counters hold the relay as the application does.
     */
    @Override
    public void bindTo(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        Tags tags = Tags.of("table", relay.outbox().table(), "relay", relay.name());
        Gauge.builder("delayq.outbox.pending", this, m -> m.status().pending())
                .description("Rows waiting in the outbox table (-1: the database did not answer)").tags(tags)
                .strongReference(true).register(registry);
        Gauge.builder("delayq.outbox.oldest.age", this, m -> {
            Duration age = m.status().oldestPending();
            return age == null ? Double.NaN : age.toNanos() / 1e9;
        }).description("Age of the oldest row waiting in the outbox").baseUnit("seconds").tags(tags)
                .strongReference(true).register(registry);
        FunctionCounter.builder("delayq.outbox.relayed", relay, r -> r.counters().relayed.get())
                .description("Rows relayed to Redis and deleted").tags(tags).register(registry);
        FunctionCounter.builder("delayq.outbox.duplicates", relay, r -> r.counters().duplicates.get())
                .description("Rows relayed whose job Redis already had (relayed again after a crash)").tags(tags)
                .register(registry);
        FunctionCounter.builder("delayq.outbox.failed", relay, r -> r.counters().failed.get())
                .description("Rows moved aside to the failed table (not a valid job)").tags(tags).register(registry);
        FunctionCounter.builder("delayq.outbox.errors", relay, r -> r.counters().errors.get())
                .description("Relay rounds that failed (database or Redis unreachable)").tags(tags).register(registry);
    }

    /** The relay's status, read again when the cached one is older than the refresh period. */
    synchronized OutboxStatus status() {
        Instant now = clock.instant();
        if (cached == null || !now.isBefore(cachedAt.plus(refresh))) {
            cached = relay.status();
            cachedAt = now;
        }
        return cached;
    }
}
