package dev.delayq.internal.queue;

import dev.delayq.Ack;
import dev.delayq.ChangeResult;
import dev.delayq.CheckReport;
import dev.delayq.ClaimBatch;
import dev.delayq.ClaimOptions;
import dev.delayq.EnqueueResult;
import dev.delayq.FailResult;
import dev.delayq.Job;
import dev.delayq.JobInfo;
import dev.delayq.Events;
import dev.delayq.JobState;
import dev.delayq.Limits;
import dev.delayq.MinuteStats;
import dev.delayq.Lease;
import dev.delayq.PurgeResult;
import dev.delayq.QueueStats;
import dev.delayq.RecoverResult;
import dev.delayq.RenewResult;
import dev.delayq.RetryPolicy;
import dev.delayq.internal.ClientLifecycle;
import dev.delayq.internal.ClientSettings;
import dev.delayq.internal.Keys;
import dev.delayq.internal.Validation;
import dev.delayq.internal.ops.Cancel;
import dev.delayq.internal.ops.Claim;
import dev.delayq.internal.ops.Complete;
import dev.delayq.internal.ops.Fail;
import dev.delayq.internal.ops.Get;
import dev.delayq.internal.ops.History;
import dev.delayq.internal.ops.Pause;
import dev.delayq.internal.ops.Progress;
import dev.delayq.internal.ops.Settings;
import dev.delayq.internal.ops.Purge;
import dev.delayq.internal.ops.Recover;
import dev.delayq.internal.ops.Release;
import dev.delayq.internal.ops.Renew;
import dev.delayq.internal.ops.Reschedule;
import dev.delayq.internal.ops.RetryDead;
import dev.delayq.internal.ops.Stats;
import dev.delayq.internal.redis.RedisBackend;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

/**
 * One set of a queue's keys on Redis: a queue without partitions, or one partition of a partitioned queue. Validates
 * input, then runs one script per operation ({@code internal.ops}); holds no job state of its own.
 */
public final class SingleQueue extends SyncQueue {

    /** Events kept per queue unless a cap is given. */
    static final int DEFAULT_EVENTS_CAP = 10_000;
    /** Dead jobs moved back per retry-all call. */
    private static final int RETRY_STEP = 1000;

    private final RedisBackend redis;
    private final Keys keys;
    private final ClientSettings settings;
    private final String name;
    private final int partition;
    private final ClientLifecycle lifecycle;
    private final Registration registration;

    /** A queue without partitions. */
    public SingleQueue(RedisBackend redis, Keys keys, ClientSettings settings, ClientLifecycle lifecycle) {
        this(redis, keys, settings, keys.queue(), 0, lifecycle);
    }

    /**
     * Partition {@code partition} of the queue {@code name} (its keys carry the hash tag {@code {name#partition}}). Its
     * first enqueue registers {@code name} in the queue registry, as a queue without partitions does.
     */
    SingleQueue(RedisBackend redis, Keys keys, ClientSettings settings, String name, int partition, ClientLifecycle lifecycle) {
        super(redis);
        this.redis = redis;
        this.keys = keys;
        this.settings = settings;
        this.name = name;
        this.partition = partition;
        this.lifecycle = lifecycle;
        this.registration = new Registration(redis, keys.prefix(), name);
    }

    /** This queue's operations over another connection of the client ({@link RedisBackend#sibling()}). */
    public SingleQueue on(RedisBackend other) {
        return new SingleQueue(other, keys, settings, name, partition, lifecycle);
    }

    /** The client's lifecycle: where workers on this queue register so that closing the client closes them. */
    public ClientLifecycle lifecycle() {
        return lifecycle;
    }

    @Override
    public String name() {
        return name;
    }

    /** This queue's partition number (0 for a queue without partitions). */
    public int partition() {
        return partition;
    }

    /** The key factory of this queue. */
    public Keys keys() {
        return keys;
    }

    /** The backend this queue runs on. */
    public RedisBackend backend() {
        return redis;
    }

    /** The client settings. */
    public ClientSettings settings() {
        return settings;
    }

    // ---- enqueue ----------------------------------------------------------------------------------------------

    @Override
    CompletableFuture<List<EnqueueResult>> startEnqueueAll(List<Job> jobs) {
        checkJobs(jobs, settings);
        String[] ids = new String[jobs.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = jobs.get(i).id();
        }
        return enqueueAllAsync(jobs, ids);
    }

    /**
     * Checks the jobs against the client's limits.
     *
     * @throws IllegalArgumentException naming the first invalid job by its id and position
     */
    static void checkJobs(List<Job> jobs, ClientSettings settings) {
        if (jobs == null) {
            throw new IllegalArgumentException("jobs must not be null");
        }
        for (int i = 0; i < jobs.size(); i++) {
            Job job = jobs.get(i);
            if (job == null) {
                throw new IllegalArgumentException("job at index " + i + " of the list is null");
            }
            int size = job.payloadUnsafe().length;
            if (size > settings.maxPayloadBytes()) {
                throw new IllegalArgumentException("payload of job '" + job.id() + "' is " + size + " bytes: the limit is "
                        + settings.maxPayloadBytes() + " bytes (DelayQ.builder().maxPayloadBytes(n) raises it; large data "
                        + "belongs in a store of its own, with a reference in the payload)");
            }
        }
    }

    /** Enqueues jobs under the ids {@code ids} (their own, or adjusted to a partition). */
    CompletableFuture<List<EnqueueResult>> enqueueAllAsync(List<Job> jobs, String[] ids) {
        if (jobs.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        registration.ensure();
        return EnqueueBatches.send(redis, keys, settings.durability(), jobs, ids);
    }

    // ---- the worker's primitives ------------------------------------------------------------------------------

    @Override
    CompletableFuture<ClaimBatch> startClaim(ClaimOptions o) {
        return Claim.call(redis, keys, partition, o);
    }

    @Override
    CompletableFuture<List<Ack>> startComplete(List<Lease> leases) {
        return Complete.call(redis, keys, settings.doneRetention(), leases);
    }

    @Override
    CompletableFuture<FailResult> startFail(Lease lease, String error, boolean retryable, Duration backoff) {
        return Fail.call(redis, keys, lease, error, retryable, backoff, settings.retryPolicy().maxAttempts());
    }

    /** {@link #failAsync(Lease, String, boolean, Duration)} where jobs without their own max attempts use {@code defaultMax}. */
    public CompletableFuture<FailResult> failAsync(Lease lease, String error, boolean retryable, Duration backoff, int defaultMax) {
        return guard(() -> {
            Validation.delay("backoff", backoff);
            return Fail.call(redis, keys, lease, error, retryable, backoff, defaultMax);
        });
    }

    @Override
    CompletableFuture<RenewResult> startRenew(List<Lease> leases, Duration lease) {
        return Renew.call(redis, keys, leases, lease);
    }

    @Override
    CompletableFuture<List<Ack>> startRelease(List<Lease> leases) {
        return Release.call(redis, keys, leases);
    }

    @Override
    public RecoverResult recover(int limit, RetryPolicy policy) {
        Validation.range("recover limit", limit, 1, ClaimOptions.MAX_BATCH);
        return redis.await(Recover.call(redis, keys, limit, policy), "recover");
    }

    // ---- administration ---------------------------------------------------------------------------------------

    @Override
    public ChangeResult cancel(String id) {
        Validation.jobId(id);
        return redis.await(Cancel.call(redis, keys, Cancel.Mode.CANCEL, false, id), "cancel");
    }

    @Override
    public ChangeResult cancelByDedupeKey(String key) {
        Validation.dedupeKey(key);
        return redis.await(Cancel.call(redis, keys, Cancel.Mode.CANCEL, true, key), "cancel");
    }

    @Override
    public ChangeResult delete(String id) {
        Validation.jobId(id);
        return redis.await(Cancel.call(redis, keys, Cancel.Mode.DELETE, false, id), "delete");
    }

    @Override
    public boolean pause() {
        return redis.await(Pause.call(redis, keys, true), "pause");
    }

    @Override
    public boolean resume() {
        return redis.await(Pause.call(redis, keys, false), "resume");
    }

    @Override
    public void limits(Limits limits) {
        if (limits == null) {
            throw new IllegalArgumentException("limits must not be null: use Limits.none() to remove them");
        }
        redis.await(Settings.limits(redis, keys, limits), "limits");
    }

    @Override
    public Limits limits() {
        return stats().limits();
    }

    @Override
    public void events(boolean enabled) {
        redis.await(Settings.events(redis, keys, enabled ? DEFAULT_EVENTS_CAP : 0), "events");
    }

    @Override
    public void events(int cap) {
        Validation.range("events cap", cap, 1, 100_000_000);
        redis.await(Settings.events(redis, keys, cap), "events");
    }

    @Override
    public Events events() {
        return new StreamEvents(List.of(this), () -> stats().eventsCap() > 0);
    }

    /**
     * Records a running job's progress (a percentage or a small JSON text, at most 4 KiB), fenced by its lease: refused
     * ({@link Ack#STALE}) once the lease is lost.
     */
    @Override
    public CompletableFuture<Ack> progressAsync(Lease lease, String progress) {
        return guard(() -> {
            if (progress == null || progress.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > Progress.MAX_BYTES) {
                throw new IllegalArgumentException("progress must be 0-" + Progress.MAX_BYTES + " bytes of text");
            }
            return Progress.call(redis, keys, lease, progress);
        });
    }

    @Override
    public List<MinuteStats> history(int minutes) {
        Validation.range("minutes", minutes, 1, 1440);
        return redis.await(History.call(redis, keys, minutes), "history");
    }

    @Override
    public ChangeResult reschedule(String id, Duration delay) {
        Validation.jobId(id);
        Validation.delay("delay", delay);
        return redis.await(Reschedule.call(redis, keys, id, delay, null), "reschedule");
    }

    @Override
    public ChangeResult reschedule(String id, Instant at) {
        Validation.jobId(id);
        Validation.instant("instant", at);
        return redis.await(Reschedule.call(redis, keys, id, null, at), "reschedule");
    }

    @Override
    public Optional<JobInfo> get(String id) {
        Validation.jobId(id);
        return redis.await(Get.call(redis, keys, id), "get");
    }

    @Override
    public List<JobInfo> list(JobState state, long offset, int limit) {
        checkState(state);
        if (offset < 0) {
            throw new IllegalArgumentException("offset is " + offset + ": it must be zero or positive");
        }
        Validation.range("limit", limit, 1, 10_000);
        return JobPages.list(redis, keys, state, offset, limit);
    }

    /**
     * Every job in {@code state}, in index order; scheduled jobs in due order whatever their priority (the due set and
     * the set of priorities 1-9 merged).
     */
    @Override
    public Stream<JobInfo> stream(JobState state) {
        checkState(state);
        return JobPages.stream(redis, keys, state);
    }

    static void checkState(JobState state) {
        if (state == null) {
            throw new IllegalArgumentException("state must not be null: use scheduled, processing, done or dead");
        }
    }

    @Override
    public QueueStats stats() {
        return redis.await(Stats.call(redis, keys, name), "stats");
    }

    @Override
    public ChangeResult retryDead(String id) {
        Validation.jobId(id);
        return redis.await(RetryDead.one(redis, keys, id), "retry");
    }

    @Override
    public long retryAllDead() {
        long moved = 0;
        long start = 0;
        while (true) {
            RetryDead.Step step = redis.await(RetryDead.step(redis, keys, RETRY_STEP, start), "retry");
            moved += step.moved();
            start += step.skipped();
            if (step.moved() + step.skipped() == 0 || step.deadLeft() <= start) {
                return moved;
            }
        }
    }

    @Override
    public PurgeResult purge() {
        return purge(settings.doneRetention().toMillis(), settings.deadRetention().toMillis());
    }

    @Override
    public PurgeResult purge(Duration olderThan) {
        Validation.delay("older-than", olderThan);
        return purge(olderThan.toMillis(), olderThan.toMillis());
    }

    private PurgeResult purge(long doneAge, long deadAge) {
        long done = 0;
        long dead = 0;
        while (true) {
            Purge.Step step = purgeStep(doneAge, deadAge, Purge.STEP, 0, null);
            done += step.done();
            dead += step.dead();
            if (!step.more()) {
                return new PurgeResult(done, dead);
            }
        }
    }

    /** One purge call of at most {@code jobs} jobs; see {@link Purge.Step}. */
    public Purge.Step purgeStep(long doneAgeMs, long deadAgeMs, int jobs, long lockMillis, String owner) {
        return redis.await(Purge.step(redis, keys, doneAgeMs, deadAgeMs, jobs, lockMillis, owner), "purge");
    }

    @Override
    public CheckReport check() {
        // A queue without partitions (not a partition of one) also looks for jobs under partition key sets.
        return QueueCheck.run(redis, keys, partition == 0 && keys.queue().equals(name) ? name : null);
    }
}
