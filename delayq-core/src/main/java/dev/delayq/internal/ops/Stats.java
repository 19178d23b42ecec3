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
    private static final ScriptKey[] KEYS = {ScriptKey.DUE, ScriptKey.LEASES, ScriptKey.DONE, ScriptKey.DEAD, ScriptKey.META,
        ScriptKey.PRIORITY_DUE, ScriptKey.DONE_BATCHES, ScriptKey.RETRYING};

    /** stats.lua takes no ARGV. */
    enum Arg { }

    /** The reply's fields before the meta fields. */
    enum Out { SCHEDULED, PROCESSING, DONE, DEAD, NOW_MS, HEAD_DUE_MS, PAST_RETENTION, READY, DELAYED, RETRYING }

    /** Each meta field after them. */
    enum Meta { META_FIELD, VALUE }

    static final Protocol PROTOCOL = Protocol.of(Script.STATS, KEYS, Arg.values(), null, Out.values(), Meta.values());
    private static final int HEADER = Out.values().length;

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
        return Reply.eval(redis, Script.STATS, ScriptKey.of(KEYS, keys)).thenApply(r -> {
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
            return new QueueStats(name, Reply.longAt(r, Out.SCHEDULED), Reply.longAt(r, Out.PROCESSING), Reply.longAt(r, Out.DONE),
                    Reply.longAt(r, Out.DEAD), totals, meta.containsKey("paused"), Reply.longAt(r, Out.HEAD_DUE_MS),
                    Reply.longAt(r, Out.NOW_MS), limits(meta), number(meta, "events"), Reply.longAt(r, Out.PAST_RETENTION),
                    Reply.longAt(r, Out.READY), Reply.longAt(r, Out.DELAYED), Reply.longAt(r, Out.RETRYING));
        });
    }
}
