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

    static QueueStats stats(String name, List<Partition> parts) {
        List<QueueStats> all = new ArrayList<>(parts.size());
        for (Partition p : parts) {
            all.add(p.stats());
        }
        return merge(name, all);
    }

    /** The queue's figures from its partitions' ({@code all}, in partition order). */
    static QueueStats merge(String name, List<QueueStats> all) {
        long scheduled = 0;
        long processing = 0;
        long done = 0;
        long dead = 0;
        Map<String, Long> totals = new LinkedHashMap<>();
        boolean paused = false;
        long oldest = -1;
        long now = 0;
        long rate = 0;
        long concurrency = 0;
        long eventsCap = 0;
        java.time.Duration per = null;
        long pastRetention = -1;
        long ready = 0;
        long delayed = 0;
        long retrying = 0;
        long waiting = 0;
        long groups = 0;
        for (QueueStats s : all) {
            waiting += s.waiting();
            groups += s.groups(); // a group's jobs on two partitions count twice: groups are per partition
            ready += s.ready();
            delayed += s.delayed();
            retrying += s.retrying();
            scheduled += s.scheduled();
            processing += s.processing();
            done += s.done();
            dead += s.dead();
            s.totals().forEach((k, v) -> totals.merge(k, v, Long::sum));
            paused |= s.paused();
            oldest = RoundRobinClaim.earliest(oldest, s.oldestDueAtMillis());
            now = Math.max(now, s.serverTimeMillis());
            rate += s.limits().rateJobs();
            concurrency += s.limits().concurrency();
            per = per != null ? per : s.limits().ratePer();
            eventsCap += s.eventsCap();
            if (s.pastRetention() >= 0) { // -1 where no worker purged that partition yet
                pastRetention = Math.max(pastRetention, 0) + s.pastRetention();
            }
        }
        dev.delayq.Limits limits = dev.delayq.Limits.none();
        if (rate > 0 && per != null) {
            limits = limits.withRate((int) rate, per);
        }
        if (concurrency > 0) {
            limits = limits.concurrency((int) concurrency);
        }
        return new QueueStats(name, scheduled, processing, done, dead, totals, paused, oldest, now, limits, eventsCap,
                pastRetention, ready, delayed, retrying, waiting, -1, groups);
    }

    /** Minute by minute: counts added, lag percentiles the worst partition's. */
    static List<MinuteStats> history(List<Partition> parts, Function<Partition, List<MinuteStats>> read) {
        List<MinuteStats> sum = null;
        for (Partition p : parts) {
            List<MinuteStats> h = read.apply(p);
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

    static PurgeResult purge(List<Partition> parts, Function<Partition, PurgeResult> purge) {
        long done = 0;
        long dead = 0;
        for (Partition p : parts) {
            PurgeResult r = purge.apply(p);
            done += r.done();
            dead += r.dead();
        }
        return new PurgeResult(done, dead);
    }

    static CheckReport check(List<Partition> parts) {
        long records = 0;
        long entries = 0;
        List<String> problems = new ArrayList<>();
        for (Partition p : parts) {
            CheckReport r = p.check();
            records += r.records();
            entries += r.entries();
            r.problems().forEach(x -> problems.add("partition " + p.partition() + ": " + x));
        }
        return new CheckReport(records, entries, List.copyOf(problems));
    }

    /** Sets each partition's share of {@code limits}; see {@code RedisInspector.limits(Limits)}. */
    static void splitLimits(String name, List<Partition> parts, dev.delayq.Limits limits) {
        if (limits == null) {
            throw new IllegalArgumentException("limits must not be null: use Limits.none() to remove them");
        }
        int p = parts.size();
        if (p == 1) {
            parts.get(0).limits(limits);
            return;
        }
        if ((limits.rateJobs() > 0 && limits.rateJobs() < p) || (limits.concurrency() > 0 && limits.concurrency() < p)) {
            throw new IllegalArgumentException("queue '" + name + "' has " + p + " partitions, each enforcing its share of a "
                    + "limit: a rate or concurrency limit must be at least " + p + " (got " + limits + ")");
        }
        for (int i = 0; i < p; i++) {
            dev.delayq.Limits share = dev.delayq.Limits.none();
            if (limits.rateJobs() > 0) {
                share = share.withRate(limits.rateJobs() / p + (i < limits.rateJobs() % p ? 1 : 0), limits.ratePer());
            }
            if (limits.concurrency() > 0) {
                share = share.concurrency(limits.concurrency() / p + (i < limits.concurrency() % p ? 1 : 0));
            }
            parts.get(i).limits(share);
        }
    }
}
