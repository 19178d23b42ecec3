package dev.delayq.internal.ops;

import dev.delayq.Ack;
import dev.delayq.Lease;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** {@code release.lua}: hand leased jobs back unfinished (due again at once, attempt not counted). */
public final class Release {
    private Release() {
    }

    public static CompletableFuture<List<Ack>> call(RedisBackend redis, Keys keys, List<Lease> leases) {
        byte[][] k = {keys.leases(), keys.jobs(), keys.due(), keys.meta(), keys.prio(), keys.events(), keys.progress()};
        return LeaseBatches.chunked(leases, chunk -> Reply.eval(redis, Script.RELEASE, k, LeaseBatches.args(chunk, keys.wakeChannel()))
                .thenApply(LeaseBatches::acks));
    }
}
