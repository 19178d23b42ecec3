package dev.delayq.internal;

import dev.delayq.internal.trace.JobTracing;
import dev.delayq.Durability;
import dev.delayq.ProducerMetrics;
import dev.delayq.RetryPolicy;
import java.time.Clock;
import java.time.Duration;

/**
 * A client's settings, validated by {@code DelayQ.Builder} and immutable.
 *
 * @param prefix          first part of every key name
 * @param maxPayloadBytes largest payload accepted
 * @param doneRetention   how long completed jobs are kept (0 = deleted on completion)
 * @param deadRetention   how long dead jobs are kept
 * @param retryPolicy     default retry policy (backoff, max attempts)
 * @param clock           the client's clock: used only for client-side bookkeeping, never as "now" for queue
 *                        logic (that is always Redis's {@code TIME})
 * @param durability      how durable an enqueue must be before it returns
 * @param tracing         the spans of enqueues and attempts ({@link JobTracing#OFF} unless OpenTelemetry was given)
 * @param producerMetrics where the enqueues report ({@link ProducerMetrics#NONE}: nowhere, at no cost)
 */
public record ClientSettings(String prefix, int maxPayloadBytes, Duration doneRetention, Duration deadRetention,
                             RetryPolicy retryPolicy, Clock clock, Durability durability, JobTracing tracing,
                             ProducerMetrics producerMetrics) {
}
