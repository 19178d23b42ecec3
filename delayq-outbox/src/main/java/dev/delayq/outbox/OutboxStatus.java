package dev.delayq.outbox;

import java.time.Duration;
import java.time.Instant;

/**
 * The state of an {@link OutboxRelay}, for health checks and dashboards.
 *
 * @param running          whether the relay's loop runs
 * @param pending          rows waiting in the outbox table (every relay's), or -1 when the database could not be asked
 * @param oldestPending    the age of the oldest waiting row on the database's clock, {@link Duration#ZERO} when none,
 *                         or {@code null} when the database could not be asked
 * @param relayed          rows this relay relayed since it started (their job enqueued, the row deleted)
 * @param duplicates       of those, rows whose job Redis already had (relayed again after a crash)
 * @param failed           rows this relay moved aside to the failed table (not a valid job)
 * @param errors           rounds of this relay that failed (database or Redis unreachable; their rows stay)
 * @param lastError        the last failed round's error, or {@code null}
 * @param lastErrorAt      when it happened, or {@code null}
 * @param lastSuccessAt    when a round last succeeded, or {@code null}
 * @param lastRoundFailed  whether the latest round failed
 */
public record OutboxStatus(boolean running, long pending, Duration oldestPending, long relayed, long duplicates,
                           long failed, long errors, String lastError, Instant lastErrorAt, Instant lastSuccessAt,
                           boolean lastRoundFailed) {
    /** Healthy: the relay runs, its latest round succeeded and the database answered. */
    public boolean healthy() {
        return running && !lastRoundFailed && pending >= 0;
    }
}
