package dev.delayq;

import java.util.List;
import java.util.Optional;

/**
 * The recurring schedules of a queue ({@link JobQueue#schedules()}), kept in Redis beside its jobs. Every worker of the
 * queue ticks them (and {@code delayq schedule tick} does for setups without workers): one script advances a schedule
 * and enqueues its next tick as a delayed job, compare-and-set on Redis's clock, so any number of workers, restarts or
 * a failover give one job per tick (its id {@code <name>@<tick ms>} makes a tick idempotent by construction).
 *
 * <p>On a partitioned queue a schedule lives in partition {@code crc32(name) mod P}, and so do its ticks: ids of the
 * exact form {@code <name>@<digits>} are routed by {@code <name>}.
 */
public interface Schedules {
    /**
     * Creates or replaces the schedule of that name. Its first tick (the first after now, and not before its start) is
     * enqueued at once. A replaced schedule keeps its pending tick when it ticks at the same times (that tick's job is
     * enqueued again with the new payload and options); otherwise its pending tick is cancelled (when still scheduled)
     * and the new first tick enqueued.
     *
     * @return true when the schedule was created, false when an existing one was updated
     * @throws IllegalArgumentException when {@code schedule} is null, or its name is blank or has blanks (white space) at
     *                                  either end: such a name lists as blank or as another one (a schedule stored
     *                                  under one before this rule can still be read, ticked and removed)
     */
    boolean upsert(Schedule schedule);

    /**
     * Removes the schedule and cancels its pending tick (when still scheduled; a running tick finishes).
     *
     * @return whether there was such a schedule
     */
    boolean remove(String name);

    /**
     * Pauses the schedule: it makes no tick until {@link #resume}d. Its pending tick is cancelled when still scheduled
     * (not yet started: a tick already running finishes), as if the schedule were disabled at once; it stays stored and
     * listed ({@link ScheduleInfo#paused()}), and an {@link #upsert} while paused changes its definition and leaves it
     * paused. Pausing a paused schedule changes nothing.
     *
     * @return whether there is such a schedule
     * @throws DelayQException when its stored value cannot be read (remove it and add it again)
     */
    boolean pause(String name);

    /**
     * Resumes a paused schedule: its next tick is the first after now (not before its start; none past its end). The
     * ticks that passed while it was paused are skipped, whatever its missed-tick policy (which is about ticks missed
     * while no worker ran). Resuming a schedule that is not paused changes nothing.
     *
     * @return whether there is such a schedule
     * @throws DelayQException when its stored value cannot be read (remove it and add it again)
     */
    boolean resume(String name);

    /** The queue's schedules, by name. */
    List<ScheduleInfo> list();

    /** One schedule, or empty when there is none of that name. */
    Optional<ScheduleInfo> get(String name);

    /**
     * Advances every schedule whose pending tick is due (enqueuing the next tick, and catch-up ticks as the missed-tick
     * policy says). Workers do this by themselves; call it where no worker runs (cron, {@code delayq schedule tick}).
     *
     * @return the tick jobs enqueued
     */
    int tick();
}
