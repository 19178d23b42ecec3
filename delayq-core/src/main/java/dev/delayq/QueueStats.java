package dev.delayq;

import java.util.Map;

/**
 * Counts per state and running totals of one queue, read atomically.
 *
 * @param queue      queue name
 * @param scheduled  jobs waiting in the due set
 * @param processing jobs leased to workers
 * @param done       completed jobs still retained
 * @param dead       dead jobs still retained
 * @param totals     running totals since the queue was created: {@code enqueued}, {@code claimed},
 *                   {@code completed}, {@code retried}, {@code dead}, {@code recovered}, {@code cancelled},
 *                   {@code deleted}, {@code quarantined} (records that could not be decoded, moved to dead)
 * @param paused     the queue is paused ({@link JobQueue#pause()}): nothing is handed out
 * @param oldestDueAtMillis the due time of the earliest scheduled job (epoch ms, Redis clock), -1 when none
 * @param serverTimeMillis  Redis's clock when the figures were read
 * @param limits     the queue's rate and concurrency limits
 * @param eventsCap  the event stream's length cap while events are on, else 0
 */
public record QueueStats(String queue, long scheduled, long processing, long done, long dead, Map<String, Long> totals,
                         boolean paused, long oldestDueAtMillis, long serverTimeMillis, Limits limits, long eventsCap) {
    /** The names of the totals, in display order. */
    public static final java.util.List<String> TOTALS = java.util.List.of("enqueued", "claimed", "completed", "retried",
            "dead", "recovered", "cancelled", "deleted", "quarantined");

    /**
     * How long the earliest due job has been waiting past its due time (0 when none is overdue): the lag a queue
     * without enough workers builds up.
     */
    public long oldestDueLagMillis() {
        return oldestDueAtMillis < 0 ? 0 : Math.max(0, serverTimeMillis - oldestDueAtMillis);
    }

    /** One total, 0 when never counted. */
    public long total(String name) {
        return totals.getOrDefault(name, 0L);
    }
}
