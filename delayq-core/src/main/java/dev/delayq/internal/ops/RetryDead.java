package dev.delayq.internal.ops;

import static dev.delayq.internal.ops.ScriptKey.DEAD;
import static dev.delayq.internal.ops.ScriptKey.DEDUPE;
import static dev.delayq.internal.ops.ScriptKey.DEDUPE_HOLDS;
import static dev.delayq.internal.ops.ScriptKey.DUE;
import static dev.delayq.internal.ops.ScriptKey.EVENTS;
import static dev.delayq.internal.ops.ScriptKey.JOBS;
import static dev.delayq.internal.ops.ScriptKey.META;
import static dev.delayq.internal.ops.ScriptKey.PRIORITY_DUE;

import dev.delayq.ChangeResult;
import dev.delayq.internal.Keys;
import dev.delayq.internal.base.ScriptLimits;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * {@code retry_dead.lua} (one job) and {@code retry_dead_all.lua} (a step of all of them), their common part in
 * {@code includes/revive.lua}: dead jobs back to the due set, due now, with a fresh budget of attempts.
 */
public final class RetryDead {
    private static final ScriptKey[] KEYS = {DEAD, DUE, JOBS, META, DEDUPE, DEDUPE_HOLDS, PRIORITY_DUE, EVENTS};

    /** retry_dead.lua's ARGV. */
    enum OneArg { WAKE_CHANNEL, ID }

    /** retry_dead.lua's reply. */
    enum OneOut { CODE, DUE }

    /** retry_dead_all.lua's ARGV. */
    enum AllArg { WAKE_CHANNEL, MOST_JOBS, RANK }

    /** retry_dead_all.lua's reply. */
    enum AllOut { MOVED, DEAD_LEFT, SKIPPED }

    static final Protocol ONE = Protocol.of(Script.RETRY_DEAD, KEYS, OneArg.values(), OneOut.values());
    static final Protocol ALL = Protocol.of(Script.RETRY_DEAD_ALL, KEYS, AllArg.values(), AllOut.values())
            .bound(AllArg.MOST_JOBS, 1, ScriptLimits.MAX_BATCH).bound(AllArg.RANK, 0, Protocol.MS);

    private RetryDead() {
    }

    /** Retries one dead job; the result carries its new due time. */
    public static CompletableFuture<ChangeResult> one(RedisBackend redis, Keys keys, String id) {
        byte[][] a = new byte[ONE.argCount()][];
        a[OneArg.WAKE_CHANNEL.ordinal()] = keys.wakeChannel();
        a[OneArg.ID.ordinal()] = Args.utf8(id);
        return Reply.eval(redis, Script.RETRY_DEAD, ScriptKey.of(KEYS, keys), a).thenApply(ReplyCode::change);
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
        byte[][] a = new byte[ALL.argCount()][];
        a[AllArg.WAKE_CHANNEL.ordinal()] = keys.wakeChannel();
        a[AllArg.MOST_JOBS.ordinal()] = Args.num(limit);
        a[AllArg.RANK.ordinal()] = Args.num(start);
        return Reply.eval(redis, Script.RETRY_DEAD_ALL, ScriptKey.of(KEYS, keys), a).thenApply((List<Object> r) -> new Step(
                Reply.longAt(r, AllOut.MOVED), Reply.longAt(r, AllOut.DEAD_LEFT), Reply.longAt(r, AllOut.SKIPPED)));
    }
}
