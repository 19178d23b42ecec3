package dev.delayq.outbox.internal;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/** The relay's running figures, read by its status and its meters. Thread-safe. */
public final class Counters {
    /** Rows relayed: their job enqueued (created, or found already there) and the row deleted. */
    public final AtomicLong relayed = new AtomicLong();
    /** Of {@link #relayed}, the rows whose job was already in Redis (a row relayed again after a crash, say). */
    public final AtomicLong duplicates = new AtomicLong();
    /** Rows moved aside to the failed table because they do not hold a valid job. */
    public final AtomicLong failed = new AtomicLong();
    /** Rounds that failed (database or Redis unreachable): their rows stay and are relayed later. */
    public final AtomicLong errors = new AtomicLong();
    private volatile String lastError;
    private volatile Instant lastErrorAt;
    private volatile Instant lastSuccessAt;
    private volatile boolean lastRoundFailed;

    /** A round that succeeded. */
    public void success(Instant at) {
        lastSuccessAt = at;
        lastRoundFailed = false;
    }

    /** A round that failed with {@code error}. */
    public void failure(Instant at, Throwable error) {
        errors.incrementAndGet();
        lastError = error.getClass().getSimpleName() + ": " + error.getMessage();
        lastErrorAt = at;
        lastRoundFailed = true;
    }

    public String lastError() {
        return lastError;
    }

    public Instant lastErrorAt() {
        return lastErrorAt;
    }

    public Instant lastSuccessAt() {
        return lastSuccessAt;
    }

    public boolean lastRoundFailed() {
        return lastRoundFailed;
    }
}
