package dev.delayq;

import java.time.Instant;

/**
 * One failure of a job, as its error history keeps it ({@link QueueInspector#errors}).
 *
 * @param attempt the attempt that failed (1 for the first)
 * @param at      when it failed (Redis's clock)
 * @param error   the error summary, truncated as a job's last error is
 */
public record JobError(int attempt, Instant at, String error) {
}
