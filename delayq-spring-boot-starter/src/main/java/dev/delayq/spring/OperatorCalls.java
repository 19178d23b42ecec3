package dev.delayq.spring;

import dev.delayq.DelayQ;
import dev.delayq.JobQueue;
import dev.delayq.Limits;
import dev.delayq.QueueStats;
import dev.delayq.Schedule;
import dev.delayq.ScheduleInfo;
import java.util.List;

/**
 * Every operator call of the starter (stats, limits, pause, events, schedules), in one place: the producer and the
 * worker APIs are used where they are needed, but the operator API of a queue is called only through here, so that
 * where it lives in the core can change in one file.
 */
final class OperatorCalls {
    private final DelayQ delayQ;

    OperatorCalls(DelayQ delayQ) {
        this.delayQ = delayQ;
    }

    private JobQueue queue(String name) {
        return delayQ.queue(name);
    }

    List<String> queues() {
        return delayQ.queues();
    }

    QueueStats stats(String queue) {
        return queue(queue).inspector().stats();
    }

    Limits limits(String queue) {
        return queue(queue).inspector().limits();
    }

    void limits(String queue, Limits limits) {
        queue(queue).inspector().limits(limits);
    }

    void paused(String queue, boolean paused) {
        if (paused) {
            queue(queue).inspector().pause();
        } else {
            queue(queue).inspector().resume();
        }
    }

    void events(String queue, boolean enabled) {
        queue(queue).inspector().events(enabled);
    }

    boolean upsert(String queue, Schedule schedule) {
        return queue(queue).schedules().upsert(schedule);
    }

    List<ScheduleInfo> schedules(String queue) {
        return queue(queue).schedules().list();
    }

    boolean removeSchedule(String queue, String name) {
        return queue(queue).schedules().remove(name);
    }
}
