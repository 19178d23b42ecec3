package dev.delayq.internal.queue;

import dev.delayq.CheckReport;
import dev.delayq.MinuteStats;
import dev.delayq.PurgeResult;
import dev.delayq.QueueStats;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** A partitioned queue's figures, as one queue: each partition's added up. */
final class PartitionTotals {
    private PartitionTotals() {
    }

    static QueueStats stats(String name, List<SingleQueue> parts) {
        long scheduled = 0;
        long processing = 0;
        long done = 0;
        long dead = 0;
        Map<String, Long> totals = new LinkedHashMap<>();
        boolean paused = false;
        long oldest = -1;
        long now = 0;
        for (SingleQueue p : parts) {
            QueueStats s = p.stats();
            scheduled += s.scheduled();
            processing += s.processing();
            done += s.done();
            dead += s.dead();
            s.totals().forEach((k, v) -> totals.merge(k, v, Long::sum));
            paused |= s.paused();
            oldest = RoundRobinClaim.earliest(oldest, s.oldestDueAtMillis());
            now = Math.max(now, s.serverTimeMillis());
        }
        return new QueueStats(name, scheduled, processing, done, dead, totals, paused, oldest, now);
    }

    /** Minute by minute: counts added, lag percentiles the worst partition's. */
    static List<MinuteStats> history(List<SingleQueue> parts, int minutes) {
        List<MinuteStats> sum = null;
        for (SingleQueue p : parts) {
            List<MinuteStats> h = p.history(minutes);
            if (sum == null) {
                sum = new ArrayList<>(h);
                continue;
            }
            for (int i = 0; i < Math.min(sum.size(), h.size()); i++) {
                MinuteStats a = sum.get(i);
                MinuteStats b = h.get(i);
                sum.set(i, new MinuteStats(a.minute(), a.enqueued() + b.enqueued(), a.completed() + b.completed(),
                        a.retried() + b.retried(), a.dead() + b.dead(), worst(a.lagP50Millis(), b.lagP50Millis()),
                        worst(a.lagP99Millis(), b.lagP99Millis())));
            }
        }
        return sum;
    }

    private static double worst(double a, double b) {
        return Double.isNaN(a) ? b : Double.isNaN(b) ? a : Math.max(a, b);
    }

    static PurgeResult purge(List<SingleQueue> parts, Function<SingleQueue, PurgeResult> purge) {
        long done = 0;
        long dead = 0;
        for (SingleQueue p : parts) {
            PurgeResult r = purge.apply(p);
            done += r.done();
            dead += r.dead();
        }
        return new PurgeResult(done, dead);
    }

    static CheckReport check(List<SingleQueue> parts) {
        long records = 0;
        long entries = 0;
        List<String> problems = new ArrayList<>();
        for (SingleQueue p : parts) {
            CheckReport r = p.check();
            records += r.records();
            entries += r.entries();
            r.problems().forEach(x -> problems.add("partition " + p.partition() + ": " + x));
        }
        return new CheckReport(records, entries, List.copyOf(problems));
    }
}
