package dev.delayq.internal.ops;

import dev.delayq.Limits;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.concurrent.CompletableFuture;

/** {@code settings.lua}: the queue's flow settings in its meta hash (rate and concurrency limits, the event stream). */
public final class Settings {
    private Settings() {
    }

    /** Replaces the queue's limits with {@code limits}. */
    public static CompletableFuture<Void> limits(RedisBackend redis, Keys keys, Limits limits) {
        String rate = limits.rateJobs() > 0 ? limits.rateJobs() + "/" + limits.ratePer().toMillis() : "";
        String concurrency = limits.concurrency() > 0 ? Integer.toString(limits.concurrency()) : "";
        return call(redis, keys, "rate", rate, "concurrency", concurrency);
    }

    /** Turns the event stream on with a length cap, or off ({@code cap} 0: the stream is deleted). */
    public static CompletableFuture<Void> events(RedisBackend redis, Keys keys, long cap) {
        return call(redis, keys, "events", cap > 0 ? Long.toString(cap) : "");
    }

    private static CompletableFuture<Void> call(RedisBackend redis, Keys keys, String... pairs) {
        byte[][] a = new byte[1 + pairs.length][];
        a[0] = keys.wakeChannel();
        for (int i = 0; i < pairs.length; i++) {
            a[1 + i] = Args.utf8(pairs[i]);
        }
        return Reply.eval(redis, Script.SETTINGS, new byte[][] {keys.meta(), keys.rate(), keys.events()}, a)
                .thenApply(r -> null);
    }
}
