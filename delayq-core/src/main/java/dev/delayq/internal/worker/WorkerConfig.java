package dev.delayq.internal.worker;

import dev.delayq.RetryPolicy;
import java.time.Duration;

/**
 * A worker's settings, validated by {@code Worker.Builder} and frozen at start.
 *
 * @param name          worker name (logs, lock owner)
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
 */
public record WorkerConfig(String name, int concurrency, int batch, Duration lease, Duration lookahead,
                           RetryPolicy retryPolicy, Duration shutdownGrace, Duration maxIdleSleep,
                           Duration purgeInterval, int recoverLimit, Duration ackLinger, Duration standby) {
}
