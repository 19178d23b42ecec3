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
 * @param paused     the queue is paused ({@link QueueInspector#pause()}): nothing is handed out
 * @param oldestDueAtMillis the due time of the earliest scheduled job (epoch ms, Redis clock), -1 when none
 * @param serverTimeMillis  Redis's clock when the figures were read
 * @param limits     the queue's rate and concurrency limits
 * @param eventsCap  the event stream's length cap while events are on, else 0
 * @param pastRetention done and dead jobs kept past their retention, waiting for the workers' purge: a figure that
 *                   grows when purging does not keep up (normally it stays below the jobs that end in one purge
 *                   interval); -1 when no worker has purged the queue yet, so the retention is not known. Counted
 *                   exactly but for the done jobs kept in done batch entries of which some are past it and some not:
 *                   those are estimated from the entries' share (each entry holds the jobs of one completion call)
 * @param ready      of the scheduled jobs, those due now (waiting for a worker); -1 when not counted (stats built by the
 *                   constructors without the split)
 * @param delayed    of the scheduled jobs, those due later that are not retrying; -1 when not counted
 * @param retrying   of the scheduled jobs, those that failed and wait for a retry still to come (a retry whose time has
 *                   come counts as ready); -1 when not counted. {@code ready + delayed + retrying == scheduled}, read in
 *                   the same atomic step
 * @param workers    the queue's live workers (heartbeat not expired by Redis's clock), read in the same request as the
 *                   counts by {@link DelayQ#statsAsync(java.util.List)}; -1 when not counted ({@link QueueInspector#stats()}
 *                   does not: {@link QueueInspector#workers()} lists them)
 * @param groups     the groups with scheduled jobs (docs/groups.md); 0 on a queue that never had grouped jobs
 */
public record QueueStats(String queue, long scheduled, long processing, long done, long dead, Map<String, Long> totals,
                         boolean paused, long oldestDueAtMillis, long serverTimeMillis, Limits limits, long eventsCap,
                         long pastRetention, long ready, long delayed, long retrying, long waiting, long workers,
                         long groups) {
    /** Stats without the count of jobs waiting for their parents (0), the live worker count (-1: not counted) and the
     * group count (0). */
    public QueueStats(String queue, long scheduled, long processing, long done, long dead, Map<String, Long> totals,
                      boolean paused, long oldestDueAtMillis, long serverTimeMillis, Limits limits, long eventsCap,
                      long pastRetention, long ready, long delayed, long retrying) {
        this(queue, scheduled, processing, done, dead, totals, paused, oldestDueAtMillis, serverTimeMillis, limits, eventsCap,
                pastRetention, ready, delayed, retrying, 0, -1, 0);
    }

    /** Stats without the split of the scheduled jobs into ready, delayed and retrying (each -1: not counted). */
    public QueueStats(String queue, long scheduled, long processing, long done, long dead, Map<String, Long> totals,
                      boolean paused, long oldestDueAtMillis, long serverTimeMillis, Limits limits, long eventsCap,
                      long pastRetention) {
        this(queue, scheduled, processing, done, dead, totals, paused, oldestDueAtMillis, serverTimeMillis, limits, eventsCap,
                pastRetention, -1, -1, -1);
    }

    /** Stats without the past-retention figure (-1: not known). */
    public QueueStats(String queue, long scheduled, long processing, long done, long dead, Map<String, Long> totals,
                      boolean paused, long oldestDueAtMillis, long serverTimeMillis, Limits limits, long eventsCap) {
        this(queue, scheduled, processing, done, dead, totals, paused, oldestDueAtMillis, serverTimeMillis, limits, eventsCap,
                -1);
    }

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

    /** These stats with the live worker count {@code n}. */
    public QueueStats withWorkers(long n) {
        return new QueueStats(queue, scheduled, processing, done, dead, totals, paused, oldestDueAtMillis, serverTimeMillis,
                limits, eventsCap, pastRetention, ready, delayed, retrying, waiting, n, groups);
    }

    /** One total, 0 when never counted. */
    public long total(String name) {
        return totals.getOrDefault(name, 0L);
    }
}
