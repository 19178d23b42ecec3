package dev.delayq;

import dev.delayq.internal.base.Validation;
import java.time.Duration;

/**
 * How durable an enqueue must be before it returns. By default ({@link #none()}) an enqueue returns when
 * Redis has applied it; what a crash can then lose depends on the server's persistence ({@code appendfsync
 * always} loses nothing acknowledged, {@code everysec} up to about a second) and, with replicas, on
 * asynchronous replication (a failover can lose the last writes).
 *
 * <p>With {@link #replicas} every enqueue waits ({@code WAIT}) until that many replicas have the job; with
 * {@link #localAof} ({@code WAITAOF}, Redis 7.2 or newer) until the master has written it to its AOF and
 * fsynced it, optionally on replicas too. When the wait times out short of the count, the enqueue throws
 * {@link DelayQDurabilityException}: the job exists but may not survive a crash or failover, and enqueueing
 * it again with the same id is safe.
 *
 * @param localAof  1 to wait for the master's AOF fsync (WAITAOF), else 0
 * @param replicas  replicas that must have the write (WAIT, or WAITAOF's replica count)
 * @param timeout   longest wait
 */
public record Durability(int localAof, int replicas, Duration timeout) {
    /** Validates the fields. */
    public Durability {
        Validation.range("local AOF", localAof, 0, 1);
        Validation.range("replicas", replicas, 0, 100);
        Validation.delay("durability timeout", timeout);
        if ((localAof > 0 || replicas > 0) && timeout.isZero()) {
            throw new IllegalArgumentException("durability timeout must be positive: a zero timeout makes WAIT block forever");
        }
    }

    /** Return as soon as Redis applied the enqueue (the default). */
    public static Durability none() {
        return new Durability(0, 0, Duration.ZERO);
    }

    /** Wait until {@code n} replicas have the job ({@code WAIT n timeout}). */
    public static Durability replicas(int n, Duration timeout) {
        Validation.range("replicas", n, 1, 100);
        return new Durability(0, n, timeout);
    }

    /** Wait until the master's AOF has the job fsynced ({@code WAITAOF 1 0 timeout}; Redis 7.2 or newer). */
    public static Durability localAof(Duration timeout) {
        return new Durability(1, 0, timeout);
    }

    /** Whether enqueues wait at all. */
    public boolean waits() {
        return localAof > 0 || replicas > 0;
    }
}
