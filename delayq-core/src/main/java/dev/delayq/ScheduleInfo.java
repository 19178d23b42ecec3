package dev.delayq;

import java.time.Instant;

/**
 * A stored schedule and where it stands.
 *
 * @param schedule its definition
 * @param nextTick the latest tick enqueued (its job is {@code <name>@<nextTick ms>}): normally ahead, in the future; a
 *                 past one while, with no overlap, its job still runs; null when the schedule has ended (past its end)
 * @param lastTick the tick before it (null before there was one)
 */
public record ScheduleInfo(Schedule schedule, Instant nextTick, Instant lastTick) {
    /** The id of a tick's job: {@code <schedule name>@<tick time in epoch ms>}. */
    public static String tickId(String name, Instant tick) {
        return name + "@" + tick.toEpochMilli();
    }
}
