package dev.delayq.internal.ops;

import static dev.delayq.internal.ops.Args.num;
import static dev.delayq.internal.ops.ScriptKey.DEAD;
import static dev.delayq.internal.ops.ScriptKey.DEDUPE;
import static dev.delayq.internal.ops.ScriptKey.DEDUPE_HOLDS;
import static dev.delayq.internal.ops.ScriptKey.DONE;
import static dev.delayq.internal.ops.ScriptKey.DONE_BATCHES;
import static dev.delayq.internal.ops.ScriptKey.JOBS;
import static dev.delayq.internal.ops.ScriptKey.META;
import static dev.delayq.internal.ops.ScriptKey.PURGE_LOCK;

import dev.delayq.internal.Keys;
import dev.delayq.internal.base.ScriptLimits;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.concurrent.CompletableFuture;

/** {@code purge.lua}: delete done and dead jobs past their retention, a bounded batch per call. */
public final class Purge {
    /** Jobs deleted per call at most. */
    public static final int STEP = ScriptLimits.MAX_BATCH;

    private static final ScriptKey[] KEYS = {DONE, DEAD, JOBS, PURGE_LOCK, DEDUPE, DEDUPE_HOLDS, DONE_BATCHES, META,
        ScriptKey.ERRORS, ScriptKey.RESULTS};

    /** ARGV, in order. */
    enum Arg { DONE_MAX_AGE_MS, DEAD_MAX_AGE_MS, MOST_JOBS, LOCK_MS, LOCK_OWNER }

    /** The reply. */
    enum Out { DONE_DELETED, DEAD_DELETED, MORE, LOCK_TTL_MS, HOLDS_RELEASED }

    static final Protocol PROTOCOL = Protocol.of(Script.PURGE, KEYS, Arg.values(), Out.values())
            .bound(Arg.DONE_MAX_AGE_MS, -1, 1L << 50).bound(Arg.DEAD_MAX_AGE_MS, -1, 1L << 50).bound(Arg.MOST_JOBS, 1, 100_000)
            .bound(Arg.LOCK_MS, 0, Protocol.MS);

    private Purge() {
    }

    /**
     * What one bounded purge call did.
     *
     * @param done        done jobs deleted
     * @param dead        dead jobs deleted
     * @param more        a limit was hit: call again
     * @param lockedForMs &gt; 0 when another caller holds the lock
     * @param holdsReleased dedupe keys whose hold ran out, released
     */
    public record Step(long done, long dead, boolean more, long lockedForMs, long holdsReleased) {
    }

    /**
     * One step: at most {@code jobs} done jobs older than {@code doneAgeMs} and dead ones older than {@code deadAgeMs}
     * (-1: keep all). With {@code lockMillis > 0} the step takes the queue's purge lock for {@code owner}, or renews it
     * when {@code owner} holds it, and releases it when it finds nothing more (the end of a pass); such a step also
     * records the retention, from which stats counts the jobs kept past it.
     */
    public static CompletableFuture<Step> step(RedisBackend redis, Keys keys, long doneAgeMs, long deadAgeMs, int jobs,
                                               long lockMillis, String owner) {
        byte[][] a = new byte[PROTOCOL.argCount()][];
        a[Arg.DONE_MAX_AGE_MS.ordinal()] = num(doneAgeMs);
        a[Arg.DEAD_MAX_AGE_MS.ordinal()] = num(deadAgeMs);
        a[Arg.MOST_JOBS.ordinal()] = num(jobs);
        a[Arg.LOCK_MS.ordinal()] = num(lockMillis);
        a[Arg.LOCK_OWNER.ordinal()] = Args.utf8(owner == null ? "-" : owner);
        return Reply.eval(redis, Script.PURGE, ScriptKey.of(KEYS, keys), a).thenApply(r -> new Step(
                Reply.longAt(r, Out.DONE_DELETED), Reply.longAt(r, Out.DEAD_DELETED), Reply.longAt(r, Out.MORE) == 1,
                Reply.longAt(r, Out.LOCK_TTL_MS), Reply.longAt(r, Out.HOLDS_RELEASED)));
    }
}
