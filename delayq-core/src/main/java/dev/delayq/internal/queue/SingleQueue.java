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
import dev.delayq.JobState;
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
import dev.delayq.internal.ops.CheckStep;
import dev.delayq.internal.ops.Claim;
import dev.delayq.internal.ops.Complete;
import dev.delayq.internal.ops.Enqueue;
import dev.delayq.internal.ops.Fail;
import dev.delayq.internal.ops.Get;
import dev.delayq.internal.ops.History;
import dev.delayq.internal.ops.Pause;
import dev.delayq.internal.ops.ListPage;
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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

/**
 * One set of a queue's keys on Redis: a queue without partitions, or one partition of a partitioned queue. Validates
 * input, then runs one script per operation ({@code internal.ops}); holds no job state of its own.
 */
public final class SingleQueue extends SyncQueue {
    /** Jobs per enqueue script call: bounds how long one call holds Redis. */
    static final int ENQUEUE_BATCH = 500;
    /** Payload bytes per enqueue script call (a batch holds at least one job). */
    static final int ENQUEUE_BATCH_BYTES = 4 * 1024 * 1024;
    private static final int MAX_PROBLEMS = 1000;
    /** Dead jobs moved back per retry-all call. */
    private static final int RETRY_STEP = 1000;

    private final RedisBackend redis;
    private final Keys keys;
    private final ClientSettings settings;
    private final String name;
    private final int partition;
    private final ClientLifecycle lifecycle;
    private volatile boolean registered;

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
        register();
        List<CompletableFuture<List<EnqueueResult>>> calls = new ArrayList<>();
        int start = 0;
        while (start < jobs.size()) {
            int end = start;
            long bytes = 0;
            while (end < jobs.size() && end - start < ENQUEUE_BATCH
                    && (end == start || bytes + jobs.get(end).payloadUnsafe().length <= ENQUEUE_BATCH_BYTES)) {
                bytes += jobs.get(end).payloadUnsafe().length;
                end++;
            }
            calls.add(Enqueue.call(redis, keys, settings.durability(), jobs.subList(start, end), Arrays.copyOfRange(ids, start, end)));
            start = end;
        }
        return CompletableFuture.allOf(calls.toArray(new CompletableFuture[0])).thenApply(v -> {
            List<EnqueueResult> out = new ArrayList<>(jobs.size());
            for (CompletableFuture<List<EnqueueResult>> c : calls) {
                out.addAll(c.join());
            }
            return out;
        });
    }

    private void register() {
        if (!registered) {
            redis.sadd(Keys.registry(keys.prefix()), name.getBytes(StandardCharsets.UTF_8)).thenRun(() -> registered = true);
        }
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
    public void pause() {
        redis.await(Pause.call(redis, keys, true), "pause");
    }

    @Override
    public void resume() {
        redis.await(Pause.call(redis, keys, false), "resume");
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
        return JobPages.list(reader(state), offset, limit);
    }

    @Override
    public Stream<JobInfo> stream(JobState state) {
        checkState(state);
        return JobPages.stream(reader(state));
    }

    private JobPages.Reader reader(JobState state) {
        return (offset, count) -> redis.await(ListPage.call(redis, keys, state, offset, count), "list");
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
            Purge.Step step = purgeStep(doneAge, deadAge, 0, null);
            done += step.done();
            dead += step.dead();
            if (!step.more()) {
                return new PurgeResult(done, dead);
            }
        }
    }

    /** One bounded purge call; see {@link Purge.Step}. */
    public Purge.Step purgeStep(long doneAgeMs, long deadAgeMs, long lockMillis, String owner) {
        return redis.await(Purge.step(redis, keys, doneAgeMs, deadAgeMs, lockMillis, owner), "purge");
    }

    @Override
    public CheckReport check() {
        List<String> problems = new ArrayList<>();
        long records = 0;
        long entries = 0;
        for (String phase : CheckStep.PHASES) {
            String cursor = "0";
            do {
                CheckStep.Page page = redis.await(CheckStep.call(redis, keys, phase, cursor), "check");
                cursor = page.cursor();
                if (phase.equals("jobs")) {
                    records += page.scanned();
                } else {
                    entries += page.scanned();
                }
                for (String p : page.problems()) {
                    if (problems.size() < MAX_PROBLEMS) {
                        problems.add(p);
                    }
                }
            } while (!cursor.equals("0"));
        }
        if (partition == 0 && keys.queue().equals(name)) { // a queue without partitions, not a partition of one
            problems.addAll(StrayKeySets.find(redis, keys.prefix(), name, 1));
        }
        return new CheckReport(records, entries, List.copyOf(problems));
    }
}
