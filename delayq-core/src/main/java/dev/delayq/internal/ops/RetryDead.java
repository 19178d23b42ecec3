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

    /** Retries one dead job; the result carries its new due time. */
    public static CompletableFuture<ChangeResult> one(RedisBackend redis, Keys keys, String id) {
        return Reply.eval(redis, Script.RETRY_DEAD, keys(keys), keys.wakeChannel(), Args.ascii("id"), Args.utf8(id))
                .thenApply(ReplyCode::change);
    }

    /**
     * One step of "retry every dead job"; see {@code Step}.
     *
     * @param moved   jobs moved back to the due set
     * @param deadLeft dead jobs left
     * @param skipped dead records that cannot be decoded, stepped over (the next step starts after them)
     */
    public record Step(long moved, long deadLeft, long skipped) {
    }

    /** Retries up to {@code limit} dead jobs from rank {@code start} of the dead set. */
    public static CompletableFuture<Step> step(RedisBackend redis, Keys keys, int limit, long start) {
        return Reply.eval(redis, Script.RETRY_DEAD, keys(keys), keys.wakeChannel(), Args.ascii("all"), Args.num(limit),
                Args.num(start)).thenApply((List<Object> r) -> new Step(Reply.asLong(r.get(0)), Reply.asLong(r.get(1)),
                Reply.asLong(r.get(2))));
    }

    private static byte[][] keys(Keys keys) {
        return new byte[][] {keys.dead(), keys.due(), keys.jobs(), keys.meta(), keys.dedupe(), keys.dedupeHolds(), keys.prio(),
                keys.events()};
    }
}
