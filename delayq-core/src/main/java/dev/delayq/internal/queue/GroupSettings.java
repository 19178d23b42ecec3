package dev.delayq.internal.queue;

import dev.delayq.GroupStats;
import dev.delayq.Limits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The group limits (lua/includes/groups.lua) of a queue's partitions: each partition enforces its share of a limit,
 * as {@link PartitionTotals#splitLimits} shares the queue's own; and the partitions' group stats merged.
 */
final class GroupSettings {
    private GroupSettings() {
    }

    static void limits(String name, List<Partition> parts, Limits limits) {
        if (limits == null) {
            throw new IllegalArgumentException("group limits must not be null: use Limits.none() to remove them");
        }
        check(name, parts.size(), limits);
        for (int i = 0; i < parts.size(); i++) {
            parts.get(i).groupLimits(share(limits, parts.size(), i));
        }
    }

    static void override(String name, List<Partition> parts, String group, Limits limits) {
        if (limits == null || (limits.concurrency() == 0 && limits.rateJobs() == 0)) {
            throw new IllegalArgumentException("a group's limits must name a concurrency or a rate limit (to return the "
                    + "group to the defaults, clear its limits)");
        }
        check(name, parts.size(), limits);
        for (int i = 0; i < parts.size(); i++) {
            Limits s = share(limits, parts.size(), i);
            String c = s.concurrency() > 0 ? Integer.toString(s.concurrency()) : "=";
            String rate = s.rateJobs() > 0 ? s.rateJobs() + " " + s.ratePer().toMillis() : "= =";
            parts.get(i).group(group, c + " " + rate + " =");
        }
    }

    private static void check(String name, int p, Limits limits) {
        if (p > 1 && ((limits.rateJobs() > 0 && limits.rateJobs() < p) || (limits.concurrency() > 0 && limits.concurrency() < p))) {
            throw new IllegalArgumentException("queue '" + name + "' has " + p + " partitions, each enforcing its share of a "
                    + "group limit: a rate or concurrency limit must be at least " + p + " (got " + limits + ")");
        }
    }

    private static Limits share(Limits limits, int p, int i) {
        Limits share = Limits.none();
        if (limits.rateJobs() > 0) {
            share = share.withRate(limits.rateJobs() / p + (i < limits.rateJobs() % p ? 1 : 0), limits.ratePer());
        }
        if (limits.concurrency() > 0) {
            share = share.concurrency(limits.concurrency() / p + (i < limits.concurrency() % p ? 1 : 0));
        }
        return share;
    }

    /** The partitions' answers as one: counts and limits added up per group, ranked again. */
    static GroupStats merge(List<GroupStats> all, int top) {
        if (all.size() == 1) {
            return all.get(0);
        }
        long groups = 0;
        Map<String, GroupStats.Group> by = new LinkedHashMap<>();
        for (GroupStats s : all) {
            groups += s.groups();
            for (GroupStats.Group g : s.top()) {
                by.merge(g.group(), g, (a, b) -> new GroupStats.Group(a.group(), a.scheduled() + b.scheduled(),
                        a.running() + b.running(), sum(a.limits(), b.limits()), a.weight()));
            }
        }
        Limits defaults = all.stream().map(GroupStats::limits).reduce(GroupSettings::sum).orElse(Limits.none());
        List<GroupStats.Group> ranked = new ArrayList<>(by.values());
        ranked.sort(Comparator.comparingLong(GroupStats.Group::scheduled).reversed().thenComparing(GroupStats.Group::group));
        return new GroupStats(groups, defaults, ranked.subList(0, Math.min(top, ranked.size())));
    }

    private static Limits sum(Limits a, Limits b) {
        Limits l = Limits.none();
        Duration per = a.ratePer() != null ? a.ratePer() : b.ratePer();
        if (a.rateJobs() + b.rateJobs() > 0 && per != null) {
            l = l.withRate(a.rateJobs() + b.rateJobs(), per);
        }
        return a.concurrency() + b.concurrency() > 0 ? l.concurrency(a.concurrency() + b.concurrency()) : l;
    }
}
