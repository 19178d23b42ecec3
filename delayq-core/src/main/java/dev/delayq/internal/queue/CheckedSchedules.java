package dev.delayq.internal.queue;

import dev.delayq.Schedule;
import dev.delayq.ScheduleInfo;
import dev.delayq.Schedules;
import dev.delayq.internal.base.Validation;
import java.util.List;
import java.util.Optional;

/**
 * A queue's schedules as {@code JobQueue.schedules()} hands them out: a schedule is stored only under a name people
 * can see and type back ({@link Validation#newScheduleName}). The rule is checked here, when a schedule is stored, and
 * not when a {@link Schedule} is built: stored schedules are read back through {@code Schedule.cron} and
 * {@code Schedule.every}, and one stored before the rule must still be listed, ticked and removed.
 */
final class CheckedSchedules implements Schedules {
    private final Schedules schedules;

    CheckedSchedules(Schedules schedules) {
        this.schedules = schedules;
    }

    @Override
    public boolean upsert(Schedule schedule) {
        if (schedule != null) {
            Validation.newScheduleName(schedule.name());
        }
        return schedules.upsert(schedule);
    }

    @Override
    public boolean remove(String name) {
        return schedules.remove(name);
    }

    @Override
    public boolean pause(String name) {
        return schedules.pause(name);
    }

    @Override
    public boolean resume(String name) {
        return schedules.resume(name);
    }

    @Override
    public List<ScheduleInfo> list() {
        return schedules.list();
    }

    @Override
    public Optional<ScheduleInfo> get(String name) {
        return schedules.get(name);
    }

    @Override
    public int tick() {
        return schedules.tick();
    }
}
