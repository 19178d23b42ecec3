package dev.delayq.internal.ops;

import static dev.delayq.internal.ops.Args.num;
import static dev.delayq.internal.ops.ScriptKey.DEAD;
import static dev.delayq.internal.ops.ScriptKey.DEDUPE;
import static dev.delayq.internal.ops.ScriptKey.DEDUPE_HOLDS;
import static dev.delayq.internal.ops.ScriptKey.DUE;
import static dev.delayq.internal.ops.ScriptKey.EVENTS;
import static dev.delayq.internal.ops.ScriptKey.HISTORY;
import static dev.delayq.internal.ops.ScriptKey.JOBS;
import static dev.delayq.internal.ops.ScriptKey.LEASES;
import static dev.delayq.internal.ops.ScriptKey.META;
import static dev.delayq.internal.ops.ScriptKey.PRIORITY_DUE;
import static dev.delayq.internal.ops.ScriptKey.PROGRESS;

import dev.delayq.RecoverResult;
import dev.delayq.RetryPolicy;
import dev.delayq.internal.Keys;
import dev.delayq.internal.base.ScriptLimits;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** {@code recover.lua}: return expired leases to the due set (or to dead), without claiming. */
public final class Recover {
    private static final ScriptKey[] KEYS = {DUE, LEASES, JOBS, META, DEAD, DEDUPE, DEDUPE_HOLDS, HISTORY, PRIORITY_DUE, EVENTS,
        PROGRESS, ScriptKey.DEPS, ScriptKey.WAITING, ScriptKey.CHILDREN};

    /** ARGV, in order. */
    enum Arg { MAX_LEASES, BACKOFF_BASE_MS, BACKOFF_CAP_MS, RANDOM_SEED, WAKE_CHANNEL, MAX_STALLS }

    /** The reply. */
    enum Out { RECOVERED, DEAD, NEXT_EXPIRY }

    static final Protocol PROTOCOL = Protocol.of(Script.RECOVER, KEYS, Arg.values(), Out.values())
            .bound(Arg.MAX_LEASES, 1, ScriptLimits.MAX_BATCH).bound(Arg.BACKOFF_BASE_MS, 0, Protocol.MS)
            .bound(Arg.BACKOFF_CAP_MS, 0, Protocol.MS).bound(Arg.RANDOM_SEED, 0, 1L << 31)
            .bound(Arg.MAX_STALLS, 0, ScriptLimits.MAX_ATTEMPTS);

    private Recover() {
    }

    public static CompletableFuture<RecoverResult> call(RedisBackend redis, Keys keys, int limit, RetryPolicy policy) {
        byte[][] k = ScriptKey.of(KEYS, keys);
        byte[][] a = new byte[PROTOCOL.argCount()][];
        a[Arg.MAX_LEASES.ordinal()] = num(limit);
        a[Arg.BACKOFF_BASE_MS.ordinal()] = num(policy.base().toMillis());
        a[Arg.BACKOFF_CAP_MS.ordinal()] = num(policy.cap().toMillis());
        a[Arg.RANDOM_SEED.ordinal()] = Args.seed();
        a[Arg.WAKE_CHANNEL.ordinal()] = keys.wakeChannel();
        a[Arg.MAX_STALLS.ordinal()] = num(policy.maxStalls());
        return Reply.eval(redis, Script.RECOVER, k, a).thenApply((List<Object> r) -> new RecoverResult(
                (int) Reply.longAt(r, Out.RECOVERED), (int) Reply.longAt(r, Out.DEAD), Reply.longAt(r, Out.NEXT_EXPIRY)));
    }
}
