package dev.delayq.internal.ops;

import dev.delayq.DelayQException;
import dev.delayq.Limits;
import dev.delayq.QueueStats;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import dev.delayq.internal.base.ScriptLimits;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
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

    /** stats_many.lua's reply: the entries answered, then per entry whether it was read and its values' count. */
    enum ManyOut { ENTRIES }

    /** stats_many.lua's reply per entry, before its values. */
    enum ManyEach { OK, COUNT }

    /** stats_many.lua's arguments, one per entry. */
    enum ManyArg { KIND }

    /** stats_many.lua: its KEYS repeat per entry (8, 9 or 1 by its kind), so none are declared fixed. */
    static final Protocol MANY = Protocol.of(Script.STATS_MANY, new ScriptKey[0], Arg.values(), ManyArg.values(),
            ManyOut.values(), ManyEach.values());

    /**
     * One entry of a {@code stats_many.lua} call: a partition's stats ({@code stats}), with its queue's live worker
     * count ({@code workers} too: a queue without partitions, whose registry is in the same key set), or the worker
     * count alone ({@code stats} false: a partitioned queue's registry, {@code keys} its plain key set).
     */
    public record Entry(Keys keys, String name, boolean stats, boolean workers) {
        String kind() {
            return stats ? (workers ? "stats+workers" : "stats") : "workers";
        }
    }

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
        return Reply.eval(redis, Script.STATS, ScriptKey.of(KEYS, keys)).thenApply(r -> decode(r, name));
    }

    /**
     * The stats and worker counts of many entries (at most {@link ScriptLimits#MAX_STATS_MANY}, on a Redis Cluster all
     * in one slot) in one {@code stats_many.lua} call: per entry, in that order, its {@link QueueStats} (with
     * {@link QueueStats#workers()} when the entry counts them, else -1), a {@link Long} (an entry of workers alone), or
     * the {@link DelayQException} saying why it cannot be read (a key of a type delayq does not write, a total that is
     * not a number), without failing the others.
     */
    public static CompletableFuture<List<Object>> many(RedisBackend redis, List<Entry> entries) {
        if (entries.size() > ScriptLimits.MAX_STATS_MANY) {
            throw new IllegalArgumentException("stats of " + entries.size() + " entries in one call: at most "
                    + ScriptLimits.MAX_STATS_MANY);
        }
        List<byte[]> keys = new ArrayList<>(entries.size() * (KEYS.length + 1));
        byte[][] args = new byte[entries.size()][];
        for (int e = 0; e < entries.size(); e++) {
            Entry entry = entries.get(e);
            if (entry.stats()) {
                keys.addAll(List.of(ScriptKey.of(KEYS, entry.keys())));
            }
            if (entry.workers()) {
                keys.add(entry.keys().workers());
            }
            args[e] = entry.kind().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }
        return Reply.eval(redis, Script.STATS_MANY, keys.toArray(byte[][]::new), args).thenApply(r -> {
            int n = Reply.asInt(Reply.at(r, ManyOut.ENTRIES));
            List<Object> out = new ArrayList<>(n);
            int i = ManyOut.values().length;
            for (int p = 0; p < n; p++) {
                boolean ok = Reply.asLong(r.get(i + ManyEach.OK.ordinal())) == 1;
                int count = Reply.asInt(r.get(i + ManyEach.COUNT.ordinal()));
                int from = i + ManyEach.values().length;
                List<Object> values = r.subList(from, from + count);
                Entry entry = entries.get(p);
                if (!ok) {
                    out.add(new DelayQException("queue '" + entry.name() + "': " + Reply.str(values.get(0))));
                } else if (!entry.stats()) {
                    out.add(Reply.asLong(values.get(0)));
                } else {
                    try {
                        QueueStats s = decode(entry.workers() ? values.subList(1, values.size()) : values, entry.name());
                        out.add(entry.workers() ? s.withWorkers(Reply.asLong(values.get(0))) : s);
                    } catch (RuntimeException e) {
                        out.add(e);
                    }
                }
                i = from + count;
            }
            return out;
        });
    }

    /** stats.lua's reply (also each readable partition's part of stats_many.lua's). */
    private static QueueStats decode(List<Object> r, String name) {
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
                Reply.longAt(r, Out.READY), Reply.longAt(r, Out.DELAYED), Reply.longAt(r, Out.RETRYING), number(meta, "waiting"), -1,
                number(meta, "groups"));
    }
}
