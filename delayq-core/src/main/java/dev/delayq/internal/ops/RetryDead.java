package dev.delayq.internal.ops;

import dev.delayq.ChangeResult;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** {@code retry_dead.lua}: dead jobs back to the due set, due now, with a fresh budget of attempts. */
public final class RetryDead {
    private RetryDead() {
    }

    /** Retries one dead job. */
    public static CompletableFuture<ChangeResult> one(RedisBackend redis, Keys keys, String id) {
        return redis.eval(Script.RETRY_DEAD, keys(keys), keys.wakeChannel(), Args.ascii("id"), Args.utf8(id)).thenApply(r -> {
            long code = Reply.asLong(r.get(0));
            if (code >= 0) { // { moved, dead_left }
                return new ChangeResult(ChangeResult.Status.CHANGED, null, 0);
            }
            return ReplyCode.change(r);
        });
    }

    /**
     * Retries up to {@code limit} of the earliest dead jobs; answers {@code {moved, dead left}}.
     */
    public static CompletableFuture<long[]> step(RedisBackend redis, Keys keys, int limit) {
        return redis.eval(Script.RETRY_DEAD, keys(keys), keys.wakeChannel(), Args.ascii("all"), Args.num(limit))
                .thenApply((List<Object> r) -> new long[] {Reply.asLong(r.get(0)), Reply.asLong(r.get(1))});
    }

    private static byte[][] keys(Keys keys) {
        return new byte[][] {keys.dead(), keys.due(), keys.jobs(), keys.meta()};
    }
}
