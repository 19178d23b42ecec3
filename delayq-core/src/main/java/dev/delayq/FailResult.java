package dev.delayq;

import java.time.Instant;

/**
 * What a failed attempt led to.
 *
 * @param outcome  retry scheduled, dead, or refused (stale token / no such job)
 * @param atMillis the retry's due time or the time of death (epoch ms, Redis clock); 0 when refused
 */
public record FailResult(Outcome outcome, long atMillis) {
    /** The possible outcomes. */
    public enum Outcome {
        /** Rescheduled for another attempt at {@link #at()}. */
        RETRY_SCHEDULED,
        /** Moved to dead (attempts used up, or the error was not retryable). */
        DEAD,
        /** Refused: the token is not the job's current lease; nothing changed. */
        STALE,
        /** Refused: no such job. */
        NOT_FOUND
    }

    /** {@link #atMillis()} as an instant, or {@code null} when refused. */
    public Instant at() {
        return atMillis > 0 ? Instant.ofEpochMilli(atMillis) : null;
    }
}
