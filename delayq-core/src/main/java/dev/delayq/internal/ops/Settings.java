package dev.delayq.internal.ops;

import dev.delayq.Limits;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.concurrent.CompletableFuture;

/** {@code settings.lua}: the queue's flow settings in its meta hash (rate and concurrency limits, the event stream). */
public final class Settings {
    private static final ScriptKey[] KEYS = {ScriptKey.META, ScriptKey.RATE_LOG, ScriptKey.EVENTS};

    /** ARGV, in order, before the settings. */
    enum Arg { WAKE_CHANNEL }

    /**
     * Each setting: which one ("rate", "concurrency" or "events": the name of a field of the queue's settings, data
     * the script validates per field, not a verb; every pair is written the same way) and its value.
     */
    enum Each { WHAT, VALUE }

    /** The reply. */
    enum Out { CODE }

    static final Protocol PROTOCOL = Protocol.of(Script.SETTINGS, KEYS, Arg.values(), Each.values(), Out.values(), null);
    private static final int ARGS = PROTOCOL.argCount();

    private Settings() {
    }

    /** Replaces the queue's limits with {@code limits}. */
    public static CompletableFuture<Void> limits(RedisBackend redis, Keys keys, Limits limits) {
        String rate = limits.rateJobs() > 0 ? limits.rateJobs() + "/" + limits.ratePer().toMillis() : "";
        String concurrency = limits.concurrency() > 0 ? Integer.toString(limits.concurrency()) : "";
        return call(redis, keys, "rate", rate, "concurrency", concurrency);
    }

    /** Replaces the limits of every group of the queue (lua/includes/groups.lua) with {@code limits}. */
    public static CompletableFuture<Void> groupLimits(RedisBackend redis, Keys keys, Limits limits) {
        String rate = limits.rateJobs() > 0 ? limits.rateJobs() + "/" + limits.ratePer().toMillis() : "";
        String concurrency = limits.concurrency() > 0 ? Integer.toString(limits.concurrency()) : "";
        return call(redis, keys, "group_rate", rate, "group_concurrency", concurrency);
    }

    /**
     * One group's own limits and weight: {@code "<concurrency> <rate n> <rate ms> <weight>"}, each {@code -} for the
     * default or {@code =} to keep what the group has; {@code ""} clears them.
     */
    public static CompletableFuture<Void> group(RedisBackend redis, Keys keys, String group, String value) {
        return call(redis, keys, "group:" + group, value);
    }

    /** Turns the event stream on with a length cap, or off ({@code cap} 0: the stream is deleted). */
    public static CompletableFuture<Void> events(RedisBackend redis, Keys keys, long cap) {
        return call(redis, keys, "events", cap > 0 ? Long.toString(cap) : "");
    }

    private static CompletableFuture<Void> call(RedisBackend redis, Keys keys, String... pairs) {
        byte[][] a = new byte[ARGS + pairs.length][];
        a[Arg.WAKE_CHANNEL.ordinal()] = keys.wakeChannel();
        for (int i = 0; i < pairs.length; i++) {
            a[ARGS + i] = Args.utf8(pairs[i]); // what, value, what, value... (Each)
        }
        return Reply.eval(redis, Script.SETTINGS, ScriptKey.of(KEYS, keys), a)
                .thenApply(r -> null);
    }
}
