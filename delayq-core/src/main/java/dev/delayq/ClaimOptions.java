package dev.delayq;

import dev.delayq.internal.base.ScriptLimits;
import dev.delayq.internal.base.Validation;
import java.time.Duration;

/**
 * Parameters of a claim.
 *
 * @param max          most jobs to lease (1 to 1,000; 0 only recovers expired leases and reports the next wake time)
 * @param lease        lease length: the job returns to the due set if not completed, failed or renewed by then
 * @param lookahead    also lease jobs due within this much of now (the caller must not start them early);
 *                     {@link Duration#ZERO} for none
 * @param retryPolicy  backoff and default max attempts for jobs this call recovers from expired leases
 * @param recoverLimit most expired leases to recover in this call
 * @param worker       the claiming worker's name, or {@code null}: a named claimer that finds nothing due
 *                     becomes the queue's "waker" for the next due time unless another is already covering it
 *                     (see {@link ClaimBatch#covered()}); workers use it so that only one of them wakes per due time
 * @param standby      how long a covered worker waits past the next due time before claiming itself; a waker's
 *                     promise older than half this is stale and is taken over
 */
public record ClaimOptions(int max, Duration lease, Duration lookahead, RetryPolicy retryPolicy, int recoverLimit,
                           String worker, Duration standby) {
    /** Largest batch one claim may lease; bounds how long one script holds Redis. */
    public static final int MAX_BATCH = ScriptLimits.MAX_BATCH;

    /** Validates every field. */
    public ClaimOptions {
        Validation.range("claim batch size", max, 0, MAX_BATCH);
        Validation.positive("lease", lease);
        Validation.delay("lookahead", lookahead);
        if (retryPolicy == null) {
            throw new IllegalArgumentException("retry policy must not be null");
        }
        Validation.range("recover limit", recoverLimit, 1, MAX_BATCH);
        Validation.delay("standby", standby);
    }

    /** Lease up to {@code max} due jobs for {@code lease}, default retry policy, no lookahead. */
    public static ClaimOptions of(int max, Duration lease) {
        return new ClaimOptions(max, lease, Duration.ZERO, RetryPolicy.defaults(), 10, null, Duration.ZERO);
    }

    /** The same options with another lookahead. */
    public ClaimOptions withLookahead(Duration lookahead) {
        return new ClaimOptions(max, lease, lookahead, retryPolicy, recoverLimit, worker, standby);
    }

    /** The same options with another retry policy. */
    public ClaimOptions withRetryPolicy(RetryPolicy policy) {
        return new ClaimOptions(max, lease, lookahead, policy, recoverLimit, worker, standby);
    }

    /** The same options with another batch size. */
    public ClaimOptions withMax(int max) {
        return new ClaimOptions(max, lease, lookahead, retryPolicy, recoverLimit, worker, standby);
    }

    /** The same options naming the claiming worker and its stand-by time. */
    public ClaimOptions withWorker(String worker, Duration standby) {
        return new ClaimOptions(max, lease, lookahead, retryPolicy, recoverLimit, worker, standby);
    }
}
