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
 *                   {@code completed}, {@code retried}, {@code dead}, {@code recovered}, {@code cancelled}
 */
public record QueueStats(String queue, long scheduled, long processing, long done, long dead, Map<String, Long> totals) {
    /** The names of the totals, in display order. */
    public static final java.util.List<String> TOTALS =
            java.util.List.of("enqueued", "claimed", "completed", "retried", "dead", "recovered", "cancelled");

    /** One total, 0 when never counted. */
    public long total(String name) {
        return totals.getOrDefault(name, 0L);
    }
}
