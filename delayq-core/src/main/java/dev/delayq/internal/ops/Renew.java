package dev.delayq.internal.ops;

import static dev.delayq.internal.ops.ScriptKey.JOBS;
import static dev.delayq.internal.ops.ScriptKey.LEASES;

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
    private static final ScriptKey[] KEYS = {LEASES, JOBS};

    /** ARGV, in order, before the leases ({@link LeaseBatches.Each}). */
    enum Arg { LEASE_MS }

    /** The reply's fields before one code per lease. */
    enum Out { EXPIRY }

    static final Protocol PROTOCOL = Protocol.of(Script.RENEW, KEYS, Arg.values(), LeaseBatches.Each.values(), Out.values(),
            LeaseBatches.Code.values()).bound(Arg.LEASE_MS, 1, Protocol.MS);

    private Renew() {
    }

    /** Renews {@code leases} for {@code lease}; the result's expiry is the latest any chunk granted. */
    public static CompletableFuture<RenewResult> call(RedisBackend redis, Keys keys, List<Lease> leases, Duration lease) {
        if (leases.isEmpty()) {
            return CompletableFuture.completedFuture(new RenewResult(0, List.of()));
        }
        byte[][] k = ScriptKey.of(KEYS, keys);
        byte[][] head = new byte[PROTOCOL.argCount()][];
        head[Arg.LEASE_MS.ordinal()] = Args.num(lease.toMillis());
        AtomicLong expiry = new AtomicLong();
        return LeaseBatches.chunked(leases, chunk -> Reply.eval(redis, Script.RENEW, k, LeaseBatches.args(chunk, head)).thenApply(r -> {
            expiry.accumulateAndGet(Reply.longAt(r, Out.EXPIRY), Math::max);
            return LeaseBatches.acks(r.subList(PROTOCOL.reply.size(), r.size()));
        })).thenApply(acks -> new RenewResult(expiry.get(), acks));
    }
}
