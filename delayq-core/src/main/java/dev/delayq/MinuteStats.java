package dev.delayq;

import java.time.Instant;

/**
 * One minute of a queue's history, as the scripts recorded it in Redis (every producer and worker adds to the same
 * counters, so the figures are the queue's, not one process's).
 *
 * @param minute       the start of the minute (Redis clock)
 * @param enqueued     jobs created
 * @param completed    jobs completed
 * @param retried      failed attempts rescheduled, and expired leases returned to the due set
 * @param dead         jobs that went to dead
 * @param lagP50Millis the median dispatch lag of the jobs claimed in the minute (claim time minus due time, as the
 *                     upper edge of a power-of-two bucket), NaN when none was claimed
 * @param lagP99Millis the 99th percentile of the same, NaN when none was claimed
 */
public record MinuteStats(Instant minute, long enqueued, long completed, long retried, long dead, double lagP50Millis,
                          double lagP99Millis) {
}
