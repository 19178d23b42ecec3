package dev.delayq;

import java.util.List;

/**
 * The result of one claim.
 *
 * @param jobs             jobs leased to the caller, in due order (equal due times in enqueue order)
 * @param serverTimeMillis Redis's clock when the claim ran (epoch ms)
 * @param nextWakeMillis   when fewer jobs than asked were claimed: the earliest next due time or lease
 *                         expiry (epoch ms, Redis clock), or {@link #NOTHING_PENDING}; {@link #NOT_COMPUTED}
 *                         when the batch was full (claim again when there is room)
 * @param recovered        expired leases returned to the due set by this call
 * @param recoveredDead    expired leases that had used their attempts and went to dead
 */
public record ClaimBatch(List<ClaimedJob> jobs, long serverTimeMillis, long nextWakeMillis, int recovered,
                         int recoveredDead) {
    /** Nothing is scheduled or leased. */
    public static final long NOTHING_PENDING = -1;
    /** The batch was full, so the next wake time was not looked up. */
    public static final long NOT_COMPUTED = -2;
}
