package dev.delayq.internal.ops;

import dev.delayq.ChangeResult;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;

/** {@code reschedule.lua}: move a scheduled job to a new due time. */
public final class Reschedule {
    private Reschedule() {
    }

    /** Moves the job to {@code at}, or when {@code at} is null to now (Redis clock) + {@code delay}. */
    public static CompletableFuture<ChangeResult> call(RedisBackend redis, Keys keys, String id, Duration delay, Instant at) {
        String when = at != null ? "a" + at.toEpochMilli() : "d" + delay.toMillis();
        return Reply.eval(redis, Script.RESCHEDULE, new byte[][] {keys.due(), keys.jobs(), keys.meta(), keys.prio(), keys.events()},
                Args.utf8(id),
                Args.ascii(when), keys.wakeChannel()).thenApply(r -> {
                    if (Reply.code(r) == ReplyCode.DUE_OUT_OF_RANGE) {
                        throw new IllegalArgumentException("new due time of job '" + id
                                + "' falls beyond year 9999 on the Redis clock");
                    }
                    return ReplyCode.change(r);
                });
    }
}
