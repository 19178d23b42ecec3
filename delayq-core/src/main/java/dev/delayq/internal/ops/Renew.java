package dev.delayq.internal.ops;

import dev.delayq.Lease;
import dev.delayq.RenewResult;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/** {@code renew.lua}: extend leases to now + lease, each fenced by its token. */
public final class Renew {
    private Renew() {
    }

    /** Renews {@code leases} for {@code lease}; the result's expiry is the latest any chunk granted. */
    public static CompletableFuture<RenewResult> call(RedisBackend redis, Keys keys, List<Lease> leases, Duration lease) {
        if (leases.isEmpty()) {
            return CompletableFuture.completedFuture(new RenewResult(0, List.of()));
        }
        byte[][] k = {keys.leases(), keys.jobs()};
        byte[] ms = Args.num(lease.toMillis());
        AtomicLong expiry = new AtomicLong();
        return LeaseBatches.chunked(leases, chunk -> Reply.eval(redis, Script.RENEW, k, LeaseBatches.args(chunk, ms)).thenApply(r -> {
            expiry.accumulateAndGet(Reply.asLong(r.get(0)), Math::max);
            return LeaseBatches.acks(r.subList(1, r.size()));
        })).thenApply(acks -> new RenewResult(expiry.get(), acks));
    }
}
