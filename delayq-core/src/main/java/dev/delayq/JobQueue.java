package dev.delayq;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One delayed queue on Redis. Obtain it from {@link DelayQ#queue(String)}; it is thread-safe and cheap.
 *
 * <p>Every method that changes a job runs one Lua script: it happens whole or not at all. "Now" is always
 * the Redis server's clock. Methods throw {@link DelayQConnectionException} when Redis cannot be reached,
 * {@link DelayQTimeoutException} when it does not answer in time, and {@link IllegalArgumentException} for
 * invalid input (the message names the field and the allowed range).
 *
 * <p>This is the producer's view: enqueue, cancel, reschedule, look a job up, and declare recurring schedules. The
 * operator's view (list, stats, history, retry, purge, check, pause, limits, events) is apart, in {@link #inspector()}
 * (or {@link DelayQ#inspector(String)}); the primitives the worker is built on (claim / complete / fail / renew /
 * release / recover) are apart too, in {@link #leases()}. Most applications only {@link #enqueue} and run a
 * {@link Worker}.
 */
public interface JobQueue {
    /** The queue's name. */
    String name();

    // ---- producing -------------------------------------------------------------------------------------

    /**
     * Enqueues one job.
     *
     * @return created (with the id, generated when the job had none) or duplicate (with the existing id)
     * @throws IllegalArgumentException when the payload exceeds the client's limit or the due time would
     *                                  fall beyond year 9999
     */
    EnqueueResult enqueue(Job job);

    /** {@link #enqueue} without blocking; the stage fails with the same exceptions. */
    CompletableFuture<EnqueueResult> enqueueAsync(Job job);

    /**
     * Enqueues many jobs in few round trips (batched scripts, pipelined). Each batch is atomic; the result
     * has one entry per job, in order.
     */
    List<EnqueueResult> enqueueAll(List<Job> jobs);

    /** {@link #enqueueAll} without blocking. */
    CompletableFuture<List<EnqueueResult>> enqueueAllAsync(List<Job> jobs);

    // ---- recurring schedules ----------------------------------------------------------------------------

    /**
     * The queue's recurring schedules: each tick becomes one job of this queue with the id
     * {@code <schedule name>@<tick ms>}, enqueued ahead by whichever worker of the queue gets there first (exactly one
     * job per tick, whatever the number of workers).
     */
    Schedules schedules();

    // ---- the other roles ------------------------------------------------------------------------

    /**
     * The primitives a {@link Worker} is built on (claim, complete, fail, renew, release, recover), for custom
     * runtimes. Producers and operators never need them.
     */
    Leases leases();

    /**
     * The operator's view of this queue (list, stats, history, retry dead jobs, purge, check, pause, limits, events):
     * what the command line and the dashboard use.
     */
    QueueInspector inspector();

    // ---- changing a job ---------------------------------------------------------------------------------


    /** Deletes a scheduled job (and releases its dedupe key); refused for jobs running or finished. */
    ChangeResult cancel(String id);

    /**
     * Cancels the scheduled job that holds dedupe key {@code key}, as {@link #cancel(String)} does; the result's
     * {@link ChangeResult#id()} names it.
     */
    ChangeResult cancelByDedupeKey(String key);

    /** Moves a scheduled job to now (Redis clock) + {@code delay}. */
    ChangeResult reschedule(String id, Duration delay);

    /** Moves a scheduled job to {@code at}. */
    ChangeResult reschedule(String id, Instant at);

    /** A job's full state, or empty when there is no such job. */
    Optional<JobInfo> get(String id);

    /**
     * Moves the scheduled job that holds dedupe key {@code key} to now (Redis clock) + {@code delay}, as
     * {@link #reschedule(String, Duration)} does; the result's {@link ChangeResult#id()} names it when it moved
     * ({@link QueueInspector#rescheduleByDedupeKey(String, Duration)}).
     */
    default ChangeResult rescheduleByDedupeKey(String key, Duration delay) {
        return inspector().rescheduleByDedupeKey(key, delay);
    }

    /** Moves the scheduled job that holds dedupe key {@code key} to {@code at} (as {@link #reschedule(String, Instant)}). */
    default ChangeResult rescheduleByDedupeKey(String key, Instant at) {
        return inspector().rescheduleByDedupeKey(key, at);
    }

    /**
     * The full state of the job that holds dedupe key {@code key}, or empty when the key names no job
     * ({@link QueueInspector#getByDedupeKey(String)}).
     */
    default Optional<JobInfo> getByDedupeKey(String key) {
        return inspector().getByDedupeKey(key);
    }

}
