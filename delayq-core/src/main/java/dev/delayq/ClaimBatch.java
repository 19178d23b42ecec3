package dev.delayq;

import java.util.List;

/**
 * The result of one claim.
 *
 * @param jobs                  jobs leased to the caller, in due order (equal due times in enqueue order)
 * @param serverTimeMillis      Redis's clock when the claim ran (epoch ms)
 * @param nextDueMillis         when fewer jobs than asked were claimed: the earliest due time still
 *                              scheduled (epoch ms, Redis clock), or {@link #NONE}; {@link #NOT_COMPUTED}
 *                              when the batch was full (claim again when there is room)
 * @param nextLeaseExpiryMillis the earliest lease still held, this claim's included, or {@link #NONE};
 *                              when it has passed, a claim would recover that job
 * @param recovered             expired leases returned to the due set by this call
 * @param recoveredDead         expired leases that had used their attempts and went to dead
 * @param covered               another idle worker has promised to claim at the next due time (only when the
 *                              claim named a worker, see {@link ClaimOptions#worker()}), so this one may stand by
 * @param serverTimeMicros      {@link #serverTimeMillis()} with microsecond precision
 * @param paused                the queue is paused: nothing was claimed or recovered, and {@link #nextDueMillis()}
 *                              is {@link #NONE} (a notice wakes workers when it resumes)
 * @param quarantined           due records that could not be decoded and were moved to dead (raw bytes kept)
 * @param limited               the queue's rate or concurrency limit cut the claim short: {@link #nextDueMillis()} is
 *                              when the rate window frees a grant, or {@link #NONE} (concurrency: a completion that
 *                              frees a lease sends a wake-up notice); claim again then, not sooner
 */
public record ClaimBatch(List<ClaimedJob> jobs, long serverTimeMillis, long nextDueMillis, long nextLeaseExpiryMillis,
                         int recovered, int recoveredDead, boolean covered, long serverTimeMicros, boolean paused,
                         int quarantined, boolean limited) {
    /** Nothing of that kind is pending. */
    public static final long NONE = -1;
    /** The batch was full, so the next due time was not looked up. */
    public static final long NOT_COMPUTED = -2;

    /**
     * The earliest of {@link #nextDueMillis()} and {@link #nextLeaseExpiryMillis()} (epoch ms, Redis clock),
     * {@link #NONE} when nothing is scheduled or leased, {@link #NOT_COMPUTED} when the batch was full.
     */
    public long nextWakeMillis() {
        if (nextDueMillis == NOT_COMPUTED) {
            return NOT_COMPUTED;
        }
        if (nextDueMillis == NONE) {
            return nextLeaseExpiryMillis;
        }
        return nextLeaseExpiryMillis == NONE ? nextDueMillis : Math.min(nextDueMillis, nextLeaseExpiryMillis);
    }
}
