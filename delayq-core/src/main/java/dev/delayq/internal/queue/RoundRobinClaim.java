package dev.delayq.internal.queue;

import dev.delayq.ClaimBatch;
import dev.delayq.ClaimOptions;
import dev.delayq.ClaimedJob;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A claim across the partitions of a queue: asks them in turn from {@code start} until the batch is full or each
 * was asked once, and merges what they report (the earliest next due time and lease expiry of all).
 */
final class RoundRobinClaim {
    private RoundRobinClaim() {
    }

    static CompletableFuture<ClaimBatch> from(List<Partition> parts, int start, ClaimOptions options) {
        return claimFrom(parts, start, 0, options, new ArrayList<>(), null);
    }

    private static CompletableFuture<ClaimBatch> claimFrom(List<Partition> parts, int start, int asked, ClaimOptions o,
                                                          List<ClaimedJob> jobs, ClaimBatch merged) {
        int remaining = o.max() - jobs.size();
        if (asked == parts.size() || (asked > 0 && remaining == 0 && o.max() > 0)) {
            return CompletableFuture.completedFuture(new ClaimBatch(List.copyOf(jobs), merged.serverTimeMillis(),
                    merged.nextDueMillis(), merged.nextLeaseExpiryMillis(), merged.recovered(), merged.recoveredDead(),
                    merged.covered(), merged.serverTimeMicros(), merged.paused(), merged.quarantined(), merged.limited()));
        }
        Partition part = parts.get((start + asked) % parts.size());
        return part.claimAsync(o.withMax(remaining)).thenCompose(b -> {
            jobs.addAll(b.jobs());
            return claimFrom(parts, start, asked + 1, o, jobs, merge(merged, b));
        });
    }

    private static ClaimBatch merge(ClaimBatch a, ClaimBatch b) {
        if (a == null) {
            return b;
        }
        long due = a.nextDueMillis() == ClaimBatch.NOT_COMPUTED || b.nextDueMillis() == ClaimBatch.NOT_COMPUTED
                ? ClaimBatch.NOT_COMPUTED : earliest(a.nextDueMillis(), b.nextDueMillis());
        // The batch's server time is the first claim's: every lease then runs at least until it plus the lease.
        return new ClaimBatch(List.of(), Math.min(a.serverTimeMillis(), b.serverTimeMillis()), due,
                earliest(a.nextLeaseExpiryMillis(), b.nextLeaseExpiryMillis()), a.recovered() + b.recovered(),
                a.recoveredDead() + b.recoveredDead(), a.covered() && b.covered(),
                Math.min(a.serverTimeMicros(), b.serverTimeMicros()), a.paused() || b.paused(),
                a.quarantined() + b.quarantined(), a.limited() || b.limited());
    }

    /** The earlier of two times where -1 means none. */
    static long earliest(long a, long b) {
        if (a < 0) {
            return b;
        }
        return b < 0 ? a : Math.min(a, b);
    }
}
