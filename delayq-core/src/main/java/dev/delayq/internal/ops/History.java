package dev.delayq.internal.ops;

import dev.delayq.MinuteStats;
import dev.delayq.internal.Keys;
import dev.delayq.internal.base.ScriptLimits;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** {@code history.lua}: the per-minute counters the scripts keep (1440 minutes at most), and per-hour (168 hours). */
public final class History {
    /** Lag buckets: 0 under 1 ms, b (1 to 20) from 2^(b-1) ms to under 2^b ms, 20 also everything above. */
    static final int BUCKETS = 21;
    private static final int PER_MINUTE = Minute.LAG_0.ordinal() + BUCKETS;

    /** ARGV. */
    enum Arg { COUNT, HOURLY }

    /** The reply's fields before the minutes. */
    enum Out { NOW }

    /** Each minute's fields: its number, four counters, the lag buckets 0 to 20. */
    enum Minute { MINUTE, ENQUEUED, COMPLETED, RETRIED, DEAD, LAG_0 }

    static final Protocol PROTOCOL = Protocol.of(Script.HISTORY, new ScriptKey[] {ScriptKey.HISTORY}, Arg.values(), null,
            Out.values(), Minute.values()).bound(Arg.COUNT, 1, ScriptLimits.HISTORY_MINUTES).bound(Arg.HOURLY, 0, 1);

    private History() {
    }

    /** The last {@code minutes} minutes, the current one included, oldest first. */
    public static CompletableFuture<List<MinuteStats>> call(RedisBackend redis, Keys keys, int minutes) {
        return call(redis, keys, minutes, false);
    }

    /**
     * The last {@code count} minutes, or hours when {@code hourly} (each then named by its first minute, its counts
     * and lag buckets the hour's), the current one included, oldest first.
     */
    public static CompletableFuture<List<MinuteStats>> call(RedisBackend redis, Keys keys, int count, boolean hourly) {
        byte[] unit = Args.num(hourly ? 1 : 0);
        return Reply.eval(redis, Script.HISTORY, ScriptKey.of(PROTOCOL.keys, keys), Args.num(count), unit).thenApply(r -> {
            List<MinuteStats> out = new ArrayList<>(count);
            int head = Out.values().length;
            for (int m = 0; head + PER_MINUTE * (m + 1) <= r.size(); m++) {
                long[] lags = new long[BUCKETS];
                for (int b = 0; b < BUCKETS; b++) {
                    lags[b] = Reply.asLong(r.get(head + PER_MINUTE * m + Minute.LAG_0.ordinal() + b));
                }
                out.add(new MinuteStats(Instant.ofEpochSecond(Reply.asLong(Reply.item(r, head, PER_MINUTE, m, Minute.MINUTE)) * 60),
                        Reply.asLong(Reply.item(r, head, PER_MINUTE, m, Minute.ENQUEUED)),
                        Reply.asLong(Reply.item(r, head, PER_MINUTE, m, Minute.COMPLETED)),
                        Reply.asLong(Reply.item(r, head, PER_MINUTE, m, Minute.RETRIED)),
                        Reply.asLong(Reply.item(r, head, PER_MINUTE, m, Minute.DEAD)),
                        percentile(lags, 0.50), percentile(lags, 0.99)));
            }
            return out;
        });
    }

    /**
     * The lag below which fraction {@code q} of the minute's claims fell, as the upper edge of its bucket (ms): a
     * power of two, so within a factor of two; NaN without claims.
     */
    static double percentile(long[] lags, double q) {
        long total = 0;
        for (long n : lags) {
            total += n;
        }
        if (total == 0) {
            return Double.NaN;
        }
        long rank = (long) Math.ceil(q * total);
        long seen = 0;
        for (int b = 0; b < lags.length; b++) {
            seen += lags[b];
            if (seen >= rank) {
                return b == 0 ? 1 : Math.pow(2, b);
            }
        }
        return Math.pow(2, lags.length - 1);
    }
}
