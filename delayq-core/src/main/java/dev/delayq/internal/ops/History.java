package dev.delayq.internal.ops;

import dev.delayq.MinuteStats;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** {@code history.lua}: the per-minute counters the scripts keep (1440 minutes at most). */
public final class History {
    /** Lag buckets: 0 under 1 ms, b (1 to 20) from 2^(b-1) ms to under 2^b ms, 20 also everything above. */
    static final int BUCKETS = 21;
    private static final int PER_MINUTE = 1 + 4 + BUCKETS;

    private History() {
    }

    /** The last {@code minutes} minutes, the current one included, oldest first. */
    public static CompletableFuture<List<MinuteStats>> call(RedisBackend redis, Keys keys, int minutes) {
        return Reply.eval(redis, Script.HISTORY, new byte[][] {keys.history()}, Args.num(minutes)).thenApply(r -> {
            List<MinuteStats> out = new ArrayList<>(minutes);
            for (int i = 1; i + PER_MINUTE - 1 < r.size(); i += PER_MINUTE) {
                long[] lags = new long[BUCKETS];
                for (int b = 0; b < BUCKETS; b++) {
                    lags[b] = Reply.asLong(r.get(i + 5 + b));
                }
                out.add(new MinuteStats(Instant.ofEpochSecond(Reply.asLong(r.get(i)) * 60), Reply.asLong(r.get(i + 1)),
                        Reply.asLong(r.get(i + 2)), Reply.asLong(r.get(i + 3)), Reply.asLong(r.get(i + 4)),
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
