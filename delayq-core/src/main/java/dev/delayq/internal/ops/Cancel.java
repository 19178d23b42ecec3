package dev.delayq.internal.ops;

import static dev.delayq.internal.ops.ScriptKey.DEAD;
import static dev.delayq.internal.ops.ScriptKey.DEDUPE;
import static dev.delayq.internal.ops.ScriptKey.DEDUPE_HOLDS;
import static dev.delayq.internal.ops.ScriptKey.DONE;
import static dev.delayq.internal.ops.ScriptKey.DONE_BATCHES;
import static dev.delayq.internal.ops.ScriptKey.DUE;
import static dev.delayq.internal.ops.ScriptKey.EVENTS;
import static dev.delayq.internal.ops.ScriptKey.JOBS;
import static dev.delayq.internal.ops.ScriptKey.LEASES;
import static dev.delayq.internal.ops.ScriptKey.META;
import static dev.delayq.internal.ops.ScriptKey.PRIORITY_DUE;

import dev.delayq.ChangeResult;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.concurrent.CompletableFuture;

/**
 * {@code cancel.lua}, {@code cancel_by_dedupe.lua} and {@code delete.lua} (their common part in
 * {@code includes/remove.lua}): cancel a scheduled job, or delete a job in any state but processing, found by its id
 * (or, for cancel, by the dedupe key it holds); its dedupe key is released at once.
 */
public final class Cancel {
    private static final ScriptKey[] KEYS = {DUE, JOBS, META, DONE, DEAD, DEDUPE, DEDUPE_HOLDS, LEASES, PRIORITY_DUE, EVENTS,
        DONE_BATCHES, ScriptKey.RETRYING, ScriptKey.ERRORS, ScriptKey.DEPS, ScriptKey.WAITING, ScriptKey.CHILDREN,
        ScriptKey.RESULTS};

    /** cancel.lua's and delete.lua's ARGV. */
    enum ById { ID, WAKE_CHANNEL }

    /** cancel_by_dedupe.lua's ARGV. */
    enum ByDedupe { DEDUPE_KEY, WAKE_CHANNEL }

    /** The reply of all three. */
    enum Out { CODE, ID }

    static final Protocol CANCEL = Protocol.of(Script.CANCEL, KEYS, ById.values(), Out.values());
    static final Protocol CANCEL_BY_DEDUPE = Protocol.of(Script.CANCEL_BY_DEDUPE, KEYS, ByDedupe.values(), Out.values());
    static final Protocol DELETE = Protocol.of(Script.DELETE, KEYS, ById.values(), Out.values());

    private Cancel() {
    }

    /** Cancels the scheduled job {@code id}. */
    public static CompletableFuture<ChangeResult> cancel(RedisBackend redis, Keys keys, String id) {
        return call(redis, keys, Script.CANCEL, id);
    }

    /** Cancels the scheduled job that holds dedupe key {@code key}. */
    public static CompletableFuture<ChangeResult> cancelByDedupe(RedisBackend redis, Keys keys, String key) {
        return call(redis, keys, Script.CANCEL_BY_DEDUPE, key);
    }

    /** Deletes the job {@code id} if it is scheduled, done or dead. */
    public static CompletableFuture<ChangeResult> delete(RedisBackend redis, Keys keys, String id) {
        return call(redis, keys, Script.DELETE, id);
    }

    private static CompletableFuture<ChangeResult> call(RedisBackend redis, Keys keys, Script script, String idOrKey) {
        // Each of the three takes the id (ById.ID) or the dedupe key (ByDedupe.DEDUPE_KEY), then the wake channel.
        return Reply.eval(redis, script, ScriptKey.of(KEYS, keys), Args.utf8(idOrKey), keys.wakeChannel()).thenApply(r -> {
            if (Reply.code(r) == ReplyCode.OK) {
                return new ChangeResult(ChangeResult.Status.CHANGED, null, 0, Reply.str(Reply.at(r, Out.ID)));
            }
            return ReplyCode.change(r);
        });
    }
}
