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
import java.util.concurrent.CompletableFuture;

/** {@code reschedule.lua}: move a scheduled job to a new due time. */
public final class Reschedule {
    private static final ScriptKey[] KEYS = {DUE, JOBS, META, PRIORITY_DUE, EVENTS, ScriptKey.RETRYING};

    /** ARGV, in order. */
    enum Arg { ID, WHEN, WAKE_CHANNEL }

    /** The reply. */
    enum Out { CODE, DUE }

    static final Protocol PROTOCOL = Protocol.of(Script.RESCHEDULE, KEYS, Arg.values(), Out.values());

    private Reschedule() {
    }

    /** Moves the job to {@code at}, or when {@code at} is null to now (Redis clock) + {@code delay}. */
    public static CompletableFuture<ChangeResult> call(RedisBackend redis, Keys keys, String id, Duration delay, Instant at) {
        String when = at != null ? "a" + at.toEpochMilli() : "d" + delay.toMillis();
        byte[][] a = new byte[PROTOCOL.argCount()][];
        a[Arg.ID.ordinal()] = Args.utf8(id);
        a[Arg.WHEN.ordinal()] = Args.ascii(when);
        a[Arg.WAKE_CHANNEL.ordinal()] = keys.wakeChannel();
        return Reply.eval(redis, Script.RESCHEDULE, ScriptKey.of(KEYS, keys), a).thenApply(r -> {
                    if (Reply.code(r) == ReplyCode.DUE_OUT_OF_RANGE) {
                        throw new IllegalArgumentException("new due time of job '" + id
                                + "' falls beyond year 9999 on the Redis clock");
                    }
                    return ReplyCode.change(r);
                });
    }
}
