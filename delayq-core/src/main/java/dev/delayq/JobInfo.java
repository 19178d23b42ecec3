package dev.delayq;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * A job's full state, as read by get or list.
 *
 * @param id               job id
 * @param state            where it is
 * @param attempt          attempts started so far (a lease that expired or was handed back does not count)
 * @param maxAttempts      the job's own max attempts, or 0 when the worker's retry policy decides
 * @param dueAtMillis      when it is (scheduled) or was (otherwise) due, epoch ms; -1 if unknown
 * @param leaseUntilMillis lease expiry while processing, else -1
 * @param finishedAtMillis when it completed or died (done, dead), else -1
 * @param token            fencing token of the current or last lease, 0 when never leased
 * @param lastError        the last error summary, or {@code null}
 * @param payload          payload bytes: all of them, or the first ones when read as a preview
 *                         ({@link QueueInspector#list(JobState, long, int, int)}; see {@link #payloadTruncated()})
 * @param name             the job's name, or {@code null}
 * @param enqueuedAtMillis when it was enqueued (epoch ms, whole seconds, Redis clock), or -1 when not recorded
 * @param stalls           how often a lease of this job expired (its worker died or lost the claim's reply)
 * @param dedupeKey        the dedupe key it was enqueued with, or {@code null}
 * @param dedupeHeldUntilMillis after the job ended: until when its dedupe key holds (epoch ms), else -1
 * @param corrupt          the stored record could not be decoded: {@link #payload()} holds its raw bytes and
 *                         {@link #state()} is the index it was found in
 * @param priority         0 to 9 (higher first among due jobs)
 * @param progress         what its running handler last reported ({@link JobContext#progress(String)}), or {@code null}
 * @param traceparent      the W3C traceparent it was enqueued with ({@link Job#traceparent()}), or {@code null}
 * @param tracestate       the W3C tracestate that goes with it, or {@code null}
 * @param payloadBytes     the whole payload's size (more than {@code payload.length} when that is a preview)
 * @param group            the job's group ({@link Job#group()}), or {@code null}
 * @param result           what its handler left with it when it completed ({@link JobContext#result(byte[])}), kept
 *                         with the done job for the done retention; {@code null} when it has none (or is not done)
 */
public record JobInfo(String id, JobState state, int attempt, int maxAttempts, long dueAtMillis, long leaseUntilMillis,
                      long finishedAtMillis, long token, String lastError, byte[] payload, String name, long enqueuedAtMillis,
                      int stalls, String dedupeKey, long dedupeHeldUntilMillis, boolean corrupt, int priority,
                      String progress, String traceparent, String tracestate, long payloadBytes, String group,
                      byte[] result) {

    /** A job without a result (the form before jobs had one). */
    public JobInfo(String id, JobState state, int attempt, int maxAttempts, long dueAtMillis, long leaseUntilMillis,
                   long finishedAtMillis, long token, String lastError, byte[] payload, String name, long enqueuedAtMillis,
                   int stalls, String dedupeKey, long dedupeHeldUntilMillis, boolean corrupt, int priority,
                   String progress, String traceparent, String tracestate, long payloadBytes, String group) {
        this(id, state, attempt, maxAttempts, dueAtMillis, leaseUntilMillis, finishedAtMillis, token, lastError, payload, name,
                enqueuedAtMillis, stalls, dedupeKey, dedupeHeldUntilMillis, corrupt, priority, progress, traceparent,
                tracestate, payloadBytes, group, null);
    }

    /** A job without a group (the form before jobs carried one). */
    public JobInfo(String id, JobState state, int attempt, int maxAttempts, long dueAtMillis, long leaseUntilMillis,
                   long finishedAtMillis, long token, String lastError, byte[] payload, String name, long enqueuedAtMillis,
                   int stalls, String dedupeKey, long dedupeHeldUntilMillis, boolean corrupt, int priority,
                   String progress, String traceparent, String tracestate, long payloadBytes) {
        this(id, state, attempt, maxAttempts, dueAtMillis, leaseUntilMillis, finishedAtMillis, token, lastError, payload, name,
                enqueuedAtMillis, stalls, dedupeKey, dedupeHeldUntilMillis, corrupt, priority, progress, traceparent,
                tracestate, payloadBytes, null, null);
    }

    /** A job whose {@link #payload()} is whole, without a trace context (the form before jobs carried one). */
    public JobInfo(String id, JobState state, int attempt, int maxAttempts, long dueAtMillis, long leaseUntilMillis,
                   long finishedAtMillis, long token, String lastError, byte[] payload, String name, long enqueuedAtMillis,
                   int stalls, String dedupeKey, long dedupeHeldUntilMillis, boolean corrupt, int priority, String progress) {
        this(id, state, attempt, maxAttempts, dueAtMillis, leaseUntilMillis, finishedAtMillis, token, lastError, payload, name,
                enqueuedAtMillis, stalls, dedupeKey, dedupeHeldUntilMillis, corrupt, priority, progress, null, null,
                payload.length, null, null);
    }

    /** Whether {@link #payload()} holds only the first {@code payload().length} of {@link #payloadBytes()} bytes. */
    public boolean payloadTruncated() {
        return payload.length < payloadBytes;
    }

    /** The payload decoded as UTF-8. */
    public String payloadUtf8() {
        return new String(payload, StandardCharsets.UTF_8);
    }

    /** The due time, or {@code null} when unknown. */
    public Instant dueAt() {
        return dueAtMillis >= 0 ? Instant.ofEpochMilli(dueAtMillis) : null;
    }

    /** The lease expiry, or {@code null} when not processing. */
    public Instant leaseUntil() {
        return leaseUntilMillis >= 0 ? Instant.ofEpochMilli(leaseUntilMillis) : null;
    }

    /** When it finished, or {@code null}. */
    public Instant finishedAt() {
        return finishedAtMillis >= 0 ? Instant.ofEpochMilli(finishedAtMillis) : null;
    }

    /** When it was enqueued, or {@code null} when not recorded. */
    public Instant enqueuedAt() {
        return enqueuedAtMillis >= 0 ? Instant.ofEpochMilli(enqueuedAtMillis) : null;
    }

    @Override
    public String toString() {
        return "JobInfo[" + id + (name != null ? " (" + name + ")" : "") + ", " + state.label() + (corrupt ? " (corrupt)" : "")
                + ", attempt " + attempt + ", due " + dueAt() + (lastError != null ? ", error " + lastError : "") + ", "
                + payloadBytes + " bytes]";
    }
}
