package dev.delayq.internal.ops;

import static dev.delayq.internal.ops.Args.num;

import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.concurrent.CompletableFuture;

/** {@code purge.lua}: delete done and dead jobs past their retention, a bounded batch per call. */
public final class Purge {
    /** Jobs deleted per call at most. */
    public static final int STEP = 1000;

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
        byte[][] k = {keys.done(), keys.dead(), keys.jobs(), keys.lock("purge"), keys.dedupe(), keys.dedupeHolds(),
                keys.doneBatches(), keys.meta()};
        return Reply.eval(redis, Script.PURGE, k, num(doneAgeMs), num(deadAgeMs), num(jobs), num(lockMillis),
                Args.utf8(owner == null ? "-" : owner)).thenApply(r -> new Step(Reply.asLong(r.get(0)), Reply.asLong(r.get(1)),
                Reply.asLong(r.get(2)) == 1, Reply.asLong(r.get(3)), Reply.asLong(r.get(4))));
    }
}
