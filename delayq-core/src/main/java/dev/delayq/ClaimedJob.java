package dev.delayq;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * A job leased to the caller by a claim.
 *
 * @param id             job id
 * @param payload        payload bytes (exactly as enqueued)
 * @param attempt        this attempt's number, from 1
 * @param maxAttempts    attempts allowed (the job's own, else the claimer's default)
 * @param dueAtMillis    when it became due (epoch ms, Redis clock)
 * @param token          fencing token of this lease
 * @param leaseUntilMillis when the lease expires unless renewed (epoch ms, Redis clock)
 * @param lastError      the previous attempt's error summary, or {@code null}
 * @param partition      the partition of the queue holding the job (0 without partitions)
 * @param name           the job's name, or {@code null}
 * @param stalls         how often a lease of this job expired before (its worker died or lost the claim's reply)
 * @param timeoutMillis  the job's own limit on one run in ms, or 0 for the worker's default
 * @param traceparent    the W3C traceparent the job was enqueued with ({@link Job#traceparent()}), or {@code null}
 * @param tracestate     the W3C tracestate that goes with it, or {@code null}
 * @param group          the job's group ({@link Job#group()}), or {@code null}
 */
public record ClaimedJob(String id, byte[] payload, int attempt, int maxAttempts, long dueAtMillis, long token,
                         long leaseUntilMillis, String lastError, int partition, String name, int stalls, long timeoutMillis,
                         String traceparent, String tracestate, String group) {

    /** A claimed job without a group (the form before jobs carried one). */
    public ClaimedJob(String id, byte[] payload, int attempt, int maxAttempts, long dueAtMillis, long token,
                      long leaseUntilMillis, String lastError, int partition, String name, int stalls, long timeoutMillis,
                      String traceparent, String tracestate) {
        this(id, payload, attempt, maxAttempts, dueAtMillis, token, leaseUntilMillis, lastError, partition, name, stalls,
                timeoutMillis, traceparent, tracestate, null);
    }

    /** A claimed job without a trace context (the form before jobs carried one). */
    public ClaimedJob(String id, byte[] payload, int attempt, int maxAttempts, long dueAtMillis, long token,
                      long leaseUntilMillis, String lastError, int partition, String name, int stalls, long timeoutMillis) {
        this(id, payload, attempt, maxAttempts, dueAtMillis, token, leaseUntilMillis, lastError, partition, name, stalls,
                timeoutMillis, null, null, null);
    }

    /** The payload decoded as UTF-8. */
    public String payloadUtf8() {
        return new String(payload, StandardCharsets.UTF_8);
    }

    /** When it became due. */
    public Instant dueAt() {
        return Instant.ofEpochMilli(dueAtMillis);
    }

    /** The lease to pass to complete, fail, renew or release. */
    public Lease lease() {
        return new Lease(id, token, partition);
    }

    /** {@code true} when this is the last attempt allowed. */
    public boolean lastAttempt() {
        return attempt >= maxAttempts;
    }

    @Override
    public String toString() {
        return "ClaimedJob[" + id + (name != null ? " (" + name + ")" : "") + ", attempt " + attempt + "/" + maxAttempts + ", token " + token + ", due "
                + dueAt() + ", " + payload.length + " bytes]";
    }
}
