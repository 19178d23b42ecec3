package dev.delayq.internal.ops;

import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.concurrent.CompletableFuture;

/** {@code pause.lua}: stop or resume handing out the queue's jobs (a resume wakes idle workers). */
public final class Pause {
    private Pause() {
    }

    /** Pauses ({@code paused}) or resumes the queue; completes with whether its state changed. */
    public static CompletableFuture<Boolean> call(RedisBackend redis, Keys keys, boolean paused) {
        return Reply.eval(redis, Script.PAUSE, new byte[][] {keys.meta()}, Args.flag(paused), keys.wakeChannel())
                .thenApply(r -> Reply.asLong(r.get(0)) == 1);
    }
}
