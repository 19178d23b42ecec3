package dev.delayq;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

/**
 * The operator's view of one queue: read its jobs and figures, change jobs by hand, pause it, set its limits and events.
 * Obtain it from {@link JobQueue#inspector()} or {@link DelayQ#inspector(String)}; it is thread-safe and cheap. The
 * command line and the dashboard are built on it (asynq's Inspector beside its Client).
 *
 * <p>Every method that changes a job runs one Lua script: it happens whole or not at all. "Now" is always the Redis
 * server's clock. Methods throw {@link DelayQConnectionException} when Redis cannot be reached,
 * {@link DelayQTimeoutException} when it does not answer in time, and {@link IllegalArgumentException} for invalid input
 * (the message names the field and the allowed range).
 */
public interface QueueInspector {
    /** The queue's name. */
    String name();

    /** Deletes a scheduled job (and releases its dedupe key); refused for jobs running or finished. */
    ChangeResult cancel(String id);

    /**
     * Cancels the scheduled job that holds dedupe key {@code key}, as {@link #cancel(String)} does; the result's
     * {@link ChangeResult#id()} names it.
     */
    ChangeResult cancelByDedupeKey(String key);

    /**
     * Deletes a job in any state but processing (scheduled, done or dead), with its dedupe key: the id can be used
     * again at once. Refused ({@link ChangeResult.Status#WRONG_STATE}) for a job a worker holds.
     */
    ChangeResult delete(String id);

    /** Moves a scheduled job to now (Redis clock) + {@code delay}. */
    ChangeResult reschedule(String id, Duration delay);

    /** Moves a scheduled job to {@code at}. */
    ChangeResult reschedule(String id, Instant at);

    /** A job's full state, or empty when there is no such job. */
    Optional<JobInfo> get(String id);

    /**
     * Moves the scheduled job that holds dedupe key {@code key} to now (Redis clock) + {@code delay}, as
     * {@link #reschedule(String, Duration)} does; the result's {@link ChangeResult#id()} names it when it moved.
     * {@link ChangeResult.Status#NOT_FOUND} when the key names no job.
     *
     * @throws IllegalArgumentException when {@code key} is not a valid dedupe key (1-512 UTF-8 bytes) or
     *                                  {@code delay} is negative or too long
     */
    ChangeResult rescheduleByDedupeKey(String key, Duration delay);

    /** Moves the scheduled job that holds dedupe key {@code key} to {@code at}, as {@link #reschedule(String, Instant)} does. */
    ChangeResult rescheduleByDedupeKey(String key, Instant at);

    /**
     * The full state of the job that holds dedupe key {@code key} (while the key holds after its job ended, that job),
     * as {@link #get(String)}; empty when the key names no job.
     *
     * @throws IllegalArgumentException when {@code key} is not a valid dedupe key (1-512 UTF-8 bytes)
     */
    Optional<JobInfo> getByDedupeKey(String key);

    /**
     * A job's error history: its last failures (at most 10), newest first, each with the attempt, when and the error
     * summary (truncated as {@link JobInfo#lastError()} is); empty when it never failed or there is no such job. Kept from
     * the first failure to the job's deletion (delete, purge, completion without retention) and only for jobs that
     * failed.
     */
    List<JobError> errors(String id);

    /**
     * A job's links in a flow (docs/flows.md): while it waits for its parents, how many have finished (done, dead) and
     * how many are pending; and how many jobs wait for it. Empty when there is no such job.
     */
    Optional<FlowLinks> links(String id);

    /**
     * The jobs behind a job's flow links (docs/flows.md), read at once: the parents it waits for (while it waits) and
     * the first {@code mostChildren} (0 to 1,000) of the jobs waiting for it, each with its state, and how many wait
     * for it in all. Empty when there is no such job. Reads only.
     *
     * @throws IllegalArgumentException when {@code mostChildren} is not 0 to 1,000, or the id is not a valid job id
     */
    Optional<FlowIds> flowIds(String id, int mostChildren);

    /**
     * One page of the jobs in {@code state}, in index order (due time, lease expiry, or finish time),
     * starting at position {@code offset}, at most {@code limit} (1 to 10,000).
     */
    List<JobInfo> list(JobState state, long offset, int limit);

    /**
     * As {@link #list(JobState, long, int)}, each job's payload cut by Redis to its first {@code previewBytes} bytes
     * ({@link JobInfo#payloadBytes()} keeps the whole size, {@link JobInfo#payloadTruncated()} says whether it was cut):
     * a page of large jobs costs no more than its previews, in Redis's reply and in this JVM.
     *
     * @param previewBytes 0 or more: the most payload bytes returned per job
     * @throws IllegalArgumentException when an argument is out of range
     */
    List<JobInfo> list(JobState state, long offset, int limit, int previewBytes);

    /**
     * As {@link #get(String)}, the payload cut by Redis to its first {@code previewBytes} bytes (see
     * {@link #list(JobState, long, int, int)}).
     */
    Optional<JobInfo> get(String id, int previewBytes);

    /**
     * Every job in {@code state}, in index order, read page by page as the stream is consumed (so listing
     * millions of jobs needs little memory). Jobs moving meanwhile may be seen twice or not at all.
     */
    Stream<JobInfo> stream(JobState state);

    /**
     * The scheduled jobs in one of their states, as {@link QueueStats} counts them, against one reading of Redis's
     * clock: {@link ScheduledState#READY ready} (due now) and {@link ScheduledState#DELAYED delayed} (due later, not
     * retrying) in due order, {@link ScheduledState#RETRYING retrying} (waiting for a retry still to come) in retry
     * order; read page by page as the stream is consumed. Ready stops at the first job due later; delayed reads the ids
     * of the queue's pending retries first and skips the ready jobs on its way.
     */
    Stream<JobInfo> stream(ScheduledState state);

    /**
     * One page of {@link #stream(ScheduledState)} from position {@code offset} (read from the start and skipped: a deep
     * page costs in proportion to its offset), at most {@code limit} (1 to 10,000) jobs, each payload cut by Redis to
     * {@code previewBytes} bytes (see {@link #list(JobState, long, int, int)}).
     *
     * @throws IllegalArgumentException when an argument is out of range
     */
    List<JobInfo> list(ScheduledState state, long offset, int limit, int previewBytes);

    /** Counts per state, running totals, whether it is paused, and the oldest due job. */
    QueueStats stats();

    /**
     * {@link #stats()} without waiting for Redis: a caller that reads many queues (a dashboard's overview, a metrics
     * scrape) sends every queue's request before it waits for any, so a refresh costs one round trip rather than one
     * per queue. Fails as {@link #stats()} would throw ({@link DelayQConnectionException}, {@link DelayQTimeoutException},
     * {@link DelayQException}), wrapped in a {@link java.util.concurrent.CompletionException} by {@code join()}.
     */
    CompletableFuture<QueueStats> statsAsync();

    /**
     * Deletes every dead job of the queue (with its record and dedupe key), in bounded batches (the workers' purge
     * script with no retention for dead jobs and done ones kept): a job that dies meanwhile may stay.
     *
     * @return how many were deleted
     */
    long deleteAllDead();

    /**
     * The queue's live workers, as their heartbeats recorded them (whichever client or process runs them): name, host,
     * pid, concurrency, the jobs they run and since when. A worker beats every 10 s by default and drops out at once when it
     * closes, or three beat intervals after its last beat when it stops without closing (killed, frozen, cut off).
     */
    List<WorkerInfo> workers();

    /**
     * Stops handing out jobs: claims return nothing, idle workers sleep (costing Redis nothing) until
     * {@link #resume()}, running jobs finish. Enqueues, schedules and every other operation go on. Kept in Redis:
     * every worker of the queue sees it.
     *
     * @return whether this call paused it ({@code false}: it was paused already)
     */
    boolean pause();

    /**
     * Hands out jobs again after {@link #pause()}; idle workers wake at once.
     *
     * @return whether this call resumed it ({@code false}: it was not paused)
     */
    boolean resume();

    /**
     * The queue's last {@code minutes} minutes (1 to 1,440), oldest first, one entry per minute: jobs enqueued,
     * completed, retried and dead, and the dispatch lag of the jobs claimed, as every producer and worker recorded
     * them in Redis.
     */
    List<MinuteStats> history(int minutes);

    /**
     * The queue's last {@code hours} hours (1 to 168, seven days), oldest first, one entry per hour, kept beside the
     * minutes by the same scripts: each entry's {@link MinuteStats#minute()} is the hour's start, its counts the
     * hour's and its lag percentiles those of every claim in the hour.
     */
    List<MinuteStats> hourlyHistory(int hours);

    /**
     * Sets the queue's flow limits (replacing the ones it has), kept in Redis and enforced inside every claim, so they
     * hold across every worker at once; {@link Limits#none()} removes them. Idle workers are woken to see them.
     */
    void limits(Limits limits);

    /** The queue's flow limits (also in {@link #stats()}). */
    Limits limits();

    /**
     * Sets the limits of every group of the queue ({@link Job#group()}, docs/groups.md), replacing the ones it has;
     * {@link Limits#none()} removes them. Each group may hold at most the concurrency limit's leases and start at most
     * the rate limit's jobs in any window, exactly across workers on Redis's clock; a group at its limit leaves its
     * turn to the others until it may run again. On a partitioned queue each partition enforces its share, as for
     * {@link #limits(Limits)}.
     */
    void groupLimits(Limits limits);

    /**
     * Overrides, for one group, the limits that {@code limits} names (a limit it leaves out keeps the group's own, or
     * the default of {@link #groupLimits(Limits)}).
     *
     * @throws IllegalArgumentException when the group key is invalid, or on a partitioned queue a limit is below the
     *                                  partition count
     */
    void groupLimits(String group, Limits limits);

    /** The jobs one group gets per turn (1 to 1000; default 1) when claims take turns between groups. */
    void groupWeight(String group, int weight);

    /** Removes one group's own limits and weight: the defaults of {@link #groupLimits(Limits)} apply to it again. */
    void clearGroupLimits(String group);

    /**
     * The queue's groups: how many have scheduled jobs or leases, the limits every group gets, and the {@code top}
     * (1 to 10,000) with the largest backlogs, ranked among at most {@link GroupStats#MAX_READ} groups per partition.
     */
    GroupStats groups(int top);

    /**
     * Turns the event stream on (every state change appended in the same script, capped at 10,000 entries) or off
     * (the stream is deleted; the scripts then add no cost).
     */
    void events(boolean enabled);

    /** Turns the event stream on with a cap of {@code cap} entries (1 to 100,000,000). */
    void events(int cap);

    /** The queue's event stream. */
    Events events();

    /** Moves one dead job back to the due set, due now, with a fresh budget of attempts. */
    ChangeResult retryDead(String id);

    /** Moves every dead job back to the due set; returns how many. */
    long retryAllDead();

    /** Deletes done and dead jobs older than the client's retention settings; returns how many. */
    PurgeResult purge();

    /** Deletes done and dead jobs that finished more than {@code olderThan} ago. */
    PurgeResult purge(Duration olderThan);

    /**
     * Checks that every job record and every index entry agree (each job judged atomically, so it is safe
     * while workers run); a clean report means no job is lost or double-indexed.
     */
    CheckReport check();
}
