package dev.delayq.internal.ops;

import dev.delayq.Ack;
import dev.delayq.Lease;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** {@code complete.lua}: acknowledge finished jobs, each fenced by its lease's token. */
public final class Complete {
    private Complete() {
    }

    /** Completes the jobs of {@code leases}; done jobs are kept for {@code retention} (zero: deleted at once). */
    public static CompletableFuture<List<Ack>> call(RedisBackend redis, Keys keys, Duration retention, List<Lease> leases) {
        byte[][] k = {keys.leases(), keys.jobs(), keys.doneBatches(), keys.meta(), keys.dedupe(), keys.dedupeHolds(), keys.history(),
                keys.dead(), keys.events(), keys.progress()};
        byte[] ms = Args.num(retention.toMillis());
        return LeaseBatches.chunked(leases, chunk -> Reply.eval(redis, Script.COMPLETE, k,
                LeaseBatches.args(chunk, ms, keys.wakeChannel())).thenApply(LeaseBatches::acks));
    }
}
