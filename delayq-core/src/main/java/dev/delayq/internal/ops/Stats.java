package dev.delayq.internal.ops;

import dev.delayq.QueueStats;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** {@code stats.lua}: counts per state and the running totals, read atomically. */
public final class Stats {
    private Stats() {
    }

    public static CompletableFuture<QueueStats> call(RedisBackend redis, Keys keys, String name) {
        byte[][] k = {keys.due(), keys.leases(), keys.done(), keys.dead(), keys.meta()};
        return redis.eval(Script.STATS, k).thenApply(r -> {
            Map<String, String> meta = new LinkedHashMap<>();
            for (int i = 4; i + 1 < r.size(); i += 2) {
                meta.put(Reply.str(r.get(i)), Reply.str(r.get(i + 1)));
            }
            Map<String, Long> totals = new LinkedHashMap<>();
            for (String t : QueueStats.TOTALS) {
                // The claim counter is the fencing-token counter: one token per claim.
                totals.put(t, Long.parseLong(meta.getOrDefault(t.equals("claimed") ? "token" : t, "0")));
            }
            return new QueueStats(name, Reply.asLong(r.get(0)), Reply.asLong(r.get(1)), Reply.asLong(r.get(2)),
                    Reply.asLong(r.get(3)), totals);
        });
    }
}
