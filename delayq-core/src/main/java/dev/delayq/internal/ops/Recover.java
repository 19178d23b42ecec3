package dev.delayq.internal.ops;

import static dev.delayq.internal.ops.Args.num;

import dev.delayq.RecoverResult;
import dev.delayq.RetryPolicy;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** {@code recover.lua}: return expired leases to the due set (or to dead), without claiming. */
public final class Recover {
    private Recover() {
    }

    public static CompletableFuture<RecoverResult> call(RedisBackend redis, Keys keys, int limit, RetryPolicy policy) {
        byte[][] k = {keys.due(), keys.leases(), keys.jobs(), keys.meta(), keys.dead(), keys.dedupe(), keys.dedupeHolds(),
                keys.history(), keys.prio(), keys.events(), keys.progress()};
        byte[][] a = {num(limit), num(policy.base().toMillis()), num(policy.cap().toMillis()), Args.seed(), keys.wakeChannel(),
                num(policy.maxStalls())};
        return Reply.eval(redis, Script.RECOVER, k, a).thenApply((List<Object> r) -> new RecoverResult((int) Reply.asLong(r.get(0)),
                (int) Reply.asLong(r.get(1)), Reply.asLong(r.get(2))));
    }
}
