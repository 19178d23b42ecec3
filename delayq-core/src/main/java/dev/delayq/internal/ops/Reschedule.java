package dev.delayq.internal.ops;

import static dev.delayq.internal.ops.ScriptKey.DUE;
import static dev.delayq.internal.ops.ScriptKey.EVENTS;
import static dev.delayq.internal.ops.ScriptKey.JOBS;
import static dev.delayq.internal.ops.ScriptKey.META;
import static dev.delayq.internal.ops.ScriptKey.PRIORITY_DUE;

import dev.delayq.ChangeResult;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * {@code reschedule.lua} and {@code reschedule_by_dedupe.lua} (their common part in {@code includes/reschedule.lua}):
 * move a scheduled job, found by its id or by the dedupe key it holds, to a new due time.
 */
public final class Reschedule {
    private static final ScriptKey[] KEYS = {DUE, JOBS, META, PRIORITY_DUE, EVENTS, ScriptKey.RETRYING};

    /** ARGV, in order. */
    enum Arg { ID, WHEN, WAKE_CHANNEL }

    /** The reply. */
    enum Out { CODE, DUE }

    private static final ScriptKey[] BY_DEDUPE_KEYS = {DUE, JOBS, META, PRIORITY_DUE, EVENTS, ScriptKey.RETRYING,
        ScriptKey.DEDUPE};

    /** reschedule_by_dedupe.lua's ARGV, in order. */
    enum ByDedupe { DEDUPE_KEY, WHEN, WAKE_CHANNEL }

    /** reschedule_by_dedupe.lua's reply. */
    enum ByDedupeOut { CODE, DUE, ID }

    static final Protocol PROTOCOL = Protocol.of(Script.RESCHEDULE, KEYS, Arg.values(), Out.values());
    static final Protocol BY_DEDUPE = Protocol.of(Script.RESCHEDULE_BY_DEDUPE, BY_DEDUPE_KEYS, ByDedupe.values(),
            ByDedupeOut.values());

    private Reschedule() {
    }

    /** Moves the job to {@code at}, or when {@code at} is null to now (Redis clock) + {@code delay}. */
    public static CompletableFuture<ChangeResult> call(RedisBackend redis, Keys keys, String id, Duration delay, Instant at) {
        byte[][] a = new byte[PROTOCOL.argCount()][];
        a[Arg.ID.ordinal()] = Args.utf8(id);
        a[Arg.WHEN.ordinal()] = when(delay, at);
        a[Arg.WAKE_CHANNEL.ordinal()] = keys.wakeChannel();
        return Reply.eval(redis, Script.RESCHEDULE, ScriptKey.of(KEYS, keys), a)
                .thenApply(r -> change(r, "job '" + id + "'"));
    }

    /**
     * Moves the scheduled job that holds dedupe key {@code key} as {@link #call} does; the result's
     * {@link ChangeResult#id()} names it when it moved.
     */
    public static CompletableFuture<ChangeResult> byDedupe(RedisBackend redis, Keys keys, String key, Duration delay,
                                                           Instant at) {
        byte[][] a = new byte[BY_DEDUPE.argCount()][];
        a[ByDedupe.DEDUPE_KEY.ordinal()] = Args.utf8(key);
        a[ByDedupe.WHEN.ordinal()] = when(delay, at);
        a[ByDedupe.WAKE_CHANNEL.ordinal()] = keys.wakeChannel();
        return Reply.eval(redis, Script.RESCHEDULE_BY_DEDUPE, ScriptKey.of(BY_DEDUPE_KEYS, keys), a).thenApply(r -> {
            ChangeResult c = change(r, "the job of dedupe key '" + key + "'");
            return c.changed() ? new ChangeResult(c.status(), null, c.atMillis(), Reply.str(Reply.at(r, ByDedupeOut.ID))) : c;
        });
    }

    private static byte[] when(Duration delay, Instant at) {
        return Args.ascii(at != null ? "a" + at.toEpochMilli() : "d" + delay.toMillis());
    }

    private static ChangeResult change(List<Object> r, String what) {
        if (Reply.code(r) == ReplyCode.DUE_OUT_OF_RANGE) {
            throw new IllegalArgumentException("new due time of " + what + " falls beyond year 9999 on the Redis clock");
        }
        return ReplyCode.change(r);
    }
}
