package dev.delayq.internal.ops;

import dev.delayq.DelayQException;
import dev.delayq.Limits;
import dev.delayq.QueueStats;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** {@code stats.lua}: counts per state, the running totals and the queue's switches, read atomically. */
public final class Stats {
    /** Elements before the meta fields: the four counts, now, head due, past retention. */
    private static final int HEADER = 7;

    private Stats() {
    }

    /** The limits kept in the meta hash (written by settings.lua). */
    static Limits limits(Map<String, String> meta) {
        Limits l = Limits.none();
        long rateN = number(meta, "rate_n");
        long rateMs = number(meta, "rate_ms");
        if (rateN > 0 && rateMs > 0) {
            l = l.withRate((int) rateN, java.time.Duration.ofMillis(rateMs));
        }
        long c = number(meta, "concurrency");
        return c > 0 ? l.concurrency((int) c) : l;
    }

    private static long number(Map<String, String> meta, String field) {
        String v = meta.get(field);
        try {
            return v == null ? 0 : Long.parseLong(v);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    public static CompletableFuture<QueueStats> call(RedisBackend redis, Keys keys, String name) {
        byte[][] k = {keys.due(), keys.leases(), keys.done(), keys.dead(), keys.meta(), keys.prio(), keys.doneBatches()};
        return Reply.eval(redis, Script.STATS, k).thenApply(r -> {
            Map<String, String> meta = new LinkedHashMap<>();
            for (int i = HEADER; i + 1 < r.size(); i += 2) {
                meta.put(Reply.str(r.get(i)), Reply.str(r.get(i + 1)));
            }
            Map<String, Long> totals = new LinkedHashMap<>();
            for (String t : QueueStats.TOTALS) {
                // The claim counter is the fencing-token counter: one token per claim.
                String v = meta.getOrDefault(t.equals("claimed") ? "token" : t, "0");
                try {
                    totals.put(t, Long.parseLong(v));
                } catch (NumberFormatException e) {
                    throw new DelayQException("queue '" + name + "': the total '" + t + "' stored in Redis is not a number ("
                            + v + "): the queue's meta hash was changed by something other than delayq");
                }
            }
            return new QueueStats(name, Reply.asLong(r.get(0)), Reply.asLong(r.get(1)), Reply.asLong(r.get(2)),
                    Reply.asLong(r.get(3)), totals, meta.containsKey("paused"), Reply.asLong(r.get(5)), Reply.asLong(r.get(4)),
                    limits(meta), number(meta, "events"), Reply.asLong(r.get(6)));
        });
    }
}
