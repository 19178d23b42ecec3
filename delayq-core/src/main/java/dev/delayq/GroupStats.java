package dev.delayq;

import java.util.List;

/**
 * A queue's groups ({@link Job#group()}, docs/groups.md): how many have scheduled jobs or running leases, the limits
 * every group gets, and the groups with the largest backlogs.
 *
 * @param groups groups with scheduled jobs or leases held (on a partitioned queue, a group counts once per partition
 *               holding its jobs)
 * @param limits the limits of every group ({@link QueueInspector#groupLimits(Limits)}); {@link Limits#none()} when none
 * @param top    the groups with the most scheduled jobs, largest first (ties by name), at most the number asked for,
 *               ranked among at most {@link #MAX_READ} groups per partition
 */
public record GroupStats(long groups, Limits limits, List<Group> top) {
    /** The most groups one call ranks per partition (the others are counted, not ranked). */
    public static final int MAX_READ = 10_000;

    public GroupStats {
        top = List.copyOf(top);
    }

    /**
     * One group.
     *
     * @param group     its key
     * @param scheduled its scheduled jobs
     * @param running   the leases its jobs hold
     * @param limits    the limits that apply to it: its own ({@link QueueInspector#groupLimits(String, Limits)}) or the
     *                  queue's for every group
     * @param weight    the jobs it gets per turn (1 unless set: {@link QueueInspector#groupWeight(String, int)})
     */
    public record Group(String group, long scheduled, long running, Limits limits, int weight) {
    }
}
