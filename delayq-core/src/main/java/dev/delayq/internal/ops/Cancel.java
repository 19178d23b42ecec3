package dev.delayq.internal.ops;

import dev.delayq.ChangeResult;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.concurrent.CompletableFuture;

/**
 * {@code cancel.lua}: cancel a scheduled job, or delete a job in any state but processing, found by its id or by
 * the dedupe key it holds; its dedupe key is released at once.
 */
public final class Cancel {
    private Cancel() {
    }

    /** What to remove. */
    public enum Mode {
        /** Only a scheduled job. */
        CANCEL,
        /** A scheduled, done or dead job. */
        DELETE
    }

    /** Removes the job {@code id} ({@code byDedupeKey}: the job holding dedupe key {@code id}). */
    public static CompletableFuture<ChangeResult> call(RedisBackend redis, Keys keys, Mode mode, boolean byDedupeKey, String id) {
        byte[][] k = {keys.due(), keys.jobs(), keys.meta(), keys.done(), keys.dead(), keys.dedupe(), keys.dedupeHolds(),
                keys.leases(), keys.prio(), keys.events(), keys.doneBatches()};
        return Reply.eval(redis, Script.CANCEL, k, Args.ascii(mode == Mode.CANCEL ? "cancel" : "delete"),
                Args.ascii(byDedupeKey ? "dedupe" : "id"), Args.utf8(id)).thenApply(r -> {
                    if (Reply.code(r) == ReplyCode.OK) {
                        return new ChangeResult(ChangeResult.Status.CHANGED, null, 0, Reply.str(r.get(1)));
                    }
                    return ReplyCode.change(r);
                });
    }
}
