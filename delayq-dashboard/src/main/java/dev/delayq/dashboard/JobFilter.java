package dev.delayq.dashboard;

import dev.delayq.JobInfo;
import dev.delayq.JobState;
import dev.delayq.QueueInspector;
import dev.delayq.QueueStats;
import dev.delayq.ScheduledState;
import java.util.List;

/**
 * The {@code state} parameter of a job list, a search and a bulk change of all matching jobs: a job state
 * ({@code scheduled}, {@code processing}, {@code done}, {@code dead}, {@code waiting}) or one of the scheduled jobs' states
 * ({@code ready}, {@code delayed}, {@code retrying}: {@link QueueInspector#list(ScheduledState, long, int, int)}).
 */
record JobFilter(JobState state, ScheduledState waiting) {
    /** The filter {@code param} names (null: scheduled); 400 naming the accepted values. */
    static JobFilter parse(String param) {
        if (param == null) {
            return new JobFilter(JobState.SCHEDULED, null);
        }
        for (ScheduledState w : ScheduledState.values()) {
            if (w.label().equalsIgnoreCase(param.strip())) {
                return new JobFilter(JobState.SCHEDULED, w);
            }
        }
        try {
            return new JobFilter(JobState.parse(param.strip()), null);
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest("state is '" + param + "': use scheduled, processing, done, dead or waiting, or "
                    + "of the scheduled jobs ready, delayed or retrying");
        }
    }

    String label() {
        return waiting != null ? waiting.label() : state.label();
    }

    /** How many jobs the filter holds, as {@code stats} counted them. */
    long total(QueueStats s) {
        if (waiting != null) {
            return switch (waiting) {
                case READY -> s.ready();
                case DELAYED -> s.delayed();
                case RETRYING -> s.retrying();
            };
        }
        return switch (state) {
            case SCHEDULED -> s.scheduled();
            case PROCESSING -> s.processing();
            case DONE -> s.done();
            case DEAD -> s.dead();
            case WAITING -> s.waiting();
        };
    }

    /** A page of the filter's jobs in index order, payloads cut to {@code preview} bytes. */
    List<JobInfo> page(QueueInspector q, long offset, int limit, int preview) {
        return waiting != null ? q.list(waiting, offset, limit, preview) : q.list(state, offset, limit, preview);
    }
}
