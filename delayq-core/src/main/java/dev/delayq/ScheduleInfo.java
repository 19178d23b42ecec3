package dev.delayq;

import java.time.Instant;

/**
 * A stored schedule and where it stands.
 *
 * @param schedule its definition
 * @param nextTick the latest tick enqueued (its job is {@code <name>@<nextTick ms>}): normally ahead, in the future; a
 *                 past one while, with no overlap, its job still runs; null when the schedule has ended (past its end)
 *                 or is paused
 * @param lastTick the tick before it (null before there was one)
 * @param paused   whether it is paused ({@link Schedules#pause}): it makes no tick until resumed
 */
public record ScheduleInfo(Schedule schedule, Instant nextTick, Instant lastTick, boolean paused) {
    /** A schedule that is not paused. */
    public ScheduleInfo(Schedule schedule, Instant nextTick, Instant lastTick) {
        this(schedule, nextTick, lastTick, false);
    }

    /** The id of a tick's job: {@code <schedule name>@<tick time in epoch ms>}. */
    public static String tickId(String name, Instant tick) {
        return name + "@" + tick.toEpochMilli();
    }
}
