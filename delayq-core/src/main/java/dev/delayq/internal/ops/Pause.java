package dev.delayq.internal.ops;

import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.concurrent.CompletableFuture;

/** {@code pause.lua} and {@code resume.lua}: stop or resume handing out the queue's jobs (a resume wakes idle workers). */
public final class Pause {
    private static final ScriptKey[] KEYS = {ScriptKey.META};

    /** pause.lua takes no ARGV. */
    enum PauseArg { }

    /** resume.lua's ARGV. */
    enum ResumeArg { WAKE_CHANNEL }

    /** The reply of both. */
    enum Out { CHANGED }

    static final Protocol PAUSE = Protocol.of(Script.PAUSE, KEYS, PauseArg.values(), Out.values());
    static final Protocol RESUME = Protocol.of(Script.RESUME, KEYS, ResumeArg.values(), Out.values());

    private Pause() {
    }

    /** Pauses ({@code paused}) or resumes the queue; completes with whether its state changed. */
    public static CompletableFuture<Boolean> call(RedisBackend redis, Keys keys, boolean paused) {
        CompletableFuture<java.util.List<Object>> r = paused
                ? Reply.eval(redis, Script.PAUSE, ScriptKey.of(KEYS, keys))
                : Reply.eval(redis, Script.RESUME, ScriptKey.of(KEYS, keys), keys.wakeChannel());
        return r.thenApply(reply -> Reply.longAt(reply, Out.CHANGED) == 1);
    }
}
