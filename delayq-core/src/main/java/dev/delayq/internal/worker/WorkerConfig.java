package dev.delayq.internal.worker;

import static dev.delayq.internal.base.Validation.human;

import dev.delayq.Bounds;
import dev.delayq.ClaimOptions;
import dev.delayq.RetryPolicy;
import dev.delayq.internal.base.Validation;
import java.time.Duration;

/**
 * A worker's settings, validated when built (by {@code Worker.Builder.build()}) and frozen at start.
 *
 * @param name          worker name (logs, lock owner, the {@code worker} tag of its meters)
 * @param concurrency   most handlers running at once
 * @param batch         most jobs leased per claim
 * @param lease         lease length
 * @param lookahead     lease jobs due this far ahead (started at their due time)
 * @param retryPolicy   backoff and default max attempts
 * @param shutdownGrace how long close() lets running handlers finish before handing their jobs back
 * @param maxIdleSleep  longest sleep without a claim when nothing is due (a safety net for lost notices)
 * @param purgeInterval how often the retention purge runs (zero: never)
 * @param recoverLimit  expired leases recovered per claim
 * @param ackLinger     how long a completion may wait to be acknowledged together with others
 * @param standby       how long an idle worker covered by another waits past a due time before claiming itself
 * @param jobTimeout    longest run of a job without a timeout of its own (zero: none)
 * @param heartbeat     how often the worker records its heartbeat (its entry lives three times as long)
 * @throws IllegalArgumentException naming the first invalid setting, its value and what is allowed
 */
public record WorkerConfig(String name, int concurrency, int batch, Duration lease, Duration lookahead,
                           RetryPolicy retryPolicy, Duration shutdownGrace, Duration maxIdleSleep,
                           Duration purgeInterval, int recoverLimit, Duration ackLinger, Duration standby,
                           Duration jobTimeout, Duration heartbeat) {
    /**
     * The default heartbeat interval, Sidekiq's (asynq beats every 5 s, but once per process, not per worker): four idle
     * workers then cost Redis 0.4 commands a second, within W3's target of 0.5 (BENCHMARKS.md).
     */
    public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(10);

    /** Validates every setting. */
    public WorkerConfig {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("worker name must not be empty");
        }
        if (name.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("worker name '" + Validation.printable(name) + "' contains a control "
                    + "character: use text without control characters");
        }
        Validation.range("concurrency", concurrency, 1, 10_000);
        Validation.range("batch size", batch, 1, ClaimOptions.MAX_BATCH);
        Validation.positive("lease duration", lease);
        Validation.atMost("lease duration", lease, Bounds.MAX_LEASE);
        if (lease.toMillis() < 100) {
            throw new IllegalArgumentException("lease duration is " + human(lease) + ": it must be at least 100ms");
        }
        Validation.delay("lookahead", lookahead);
        if (lookahead.multipliedBy(2).compareTo(lease) >= 0) {
            throw new IllegalArgumentException("lookahead is " + human(lookahead) + ": it must be under half the lease "
                    + "duration (" + human(lease) + ")");
        }
        if (retryPolicy == null) {
            throw new IllegalArgumentException("retry policy must not be null");
        }
        Validation.delay("shutdown grace", shutdownGrace);
        Validation.positive("max idle sleep", maxIdleSleep);
        Validation.delay("purge interval", purgeInterval);
        Validation.range("recover limit", recoverLimit, 1, ClaimOptions.MAX_BATCH);
        Validation.delay("ack linger", ackLinger);
        if (ackLinger.multipliedBy(10).compareTo(lease) > 0) {
            throw new IllegalArgumentException("ack linger is " + human(ackLinger) + ": it must be at most a tenth of the "
                    + "lease duration (" + human(lease) + ")");
        }
        Validation.delay("standby", standby);
        Validation.atMost("standby", standby, Bounds.MAX_LEASE);
        if (jobTimeout == null) {
            jobTimeout = Duration.ZERO;
        } else if (!jobTimeout.isZero()) {
            Validation.jobTimeout("job timeout", jobTimeout);
        }
        Validation.positive("heartbeat interval", heartbeat);
        if (heartbeat.toMillis() < 100 || heartbeat.compareTo(Duration.ofMinutes(10)) > 0) {
            throw new IllegalArgumentException("heartbeat interval is " + human(heartbeat) + ": it must be 100ms to 10m");
        }
    }

    /** A worker's default name: host-pid-random. */
    public static String defaultName() {
        return Heartbeat.localHost() + "-" + ProcessHandle.current().pid() + "-"
                + Integer.toString(java.util.concurrent.ThreadLocalRandom.current().nextInt(36 * 36 * 36), 36);
    }
}
