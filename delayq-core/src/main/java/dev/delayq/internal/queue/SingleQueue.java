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
import dev.delayq.Lease;
import dev.delayq.PurgeResult;
import dev.delayq.QueueStats;
import dev.delayq.RecoverResult;
import dev.delayq.RenewResult;
import dev.delayq.RetryPolicy;
import dev.delayq.internal.ClientSettings;
import dev.delayq.internal.Ids;
import dev.delayq.internal.Keys;
import dev.delayq.internal.Validation;
import dev.delayq.internal.ops.Cancel;
import dev.delayq.internal.ops.CheckStep;
import dev.delayq.internal.ops.Claim;
import dev.delayq.internal.ops.Complete;
import dev.delayq.internal.ops.Enqueue;
import dev.delayq.internal.ops.Fail;
import dev.delayq.internal.ops.Get;
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

    private final RedisBackend redis;
    private final Keys keys;
    private final ClientSettings settings;
    private final String name;
    private final int partition;
    private volatile boolean registered;

    /** A queue without partitions. */
    public SingleQueue(RedisBackend redis, Keys keys, ClientSettings settings) {
        this(redis, keys, settings, keys.queue(), 0);
    }

    /**
     * Partition {@code partition} of the queue {@code name} (its keys carry the hash tag {@code {name#partition}}). Its
     * first enqueue registers {@code name} in the queue registry, as a queue without partitions does.
     */
    SingleQueue(RedisBackend redis, Keys keys, ClientSettings settings, String name, int partition) {
        super(redis);
        this.redis = redis;
        this.keys = keys;
        this.settings = settings;
        this.name = name;
        this.partition = partition;
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
    public CompletableFuture<List<EnqueueResult>> enqueueAllAsync(List<Job> jobs) {
        return enqueueAllAsync(jobs, ids(jobs, settings));
    }

    /**
     * Checks the jobs against the client's limits and returns their ids: the caller's, or generated ones.
     *
     * @throws IllegalArgumentException naming the first invalid job
     */
    static String[] ids(List<Job> jobs, ClientSettings settings) {
        if (jobs == null) {
            throw new IllegalArgumentException("jobs must not be null");
        }
        String[] ids = new String[jobs.size()];
        for (int i = 0; i < jobs.size(); i++) {
            Job job = jobs.get(i);
            if (job == null) {
                throw new IllegalArgumentException("job " + i + " is null");
            }
            int size = job.payloadUnsafe().length;
            if (size > settings.maxPayloadBytes()) {
                throw new IllegalArgumentException("payload of job " + (job.id() != null ? "'" + job.id() + "'" : i)
                        + " is " + size + " bytes: the limit is " + settings.maxPayloadBytes() + " bytes");
            }
            ids[i] = job.id() != null ? job.id() : Ids.generate();
        }
        return ids;
    }

    /** Enqueues jobs whose ids were already chosen ({@code ids[i]}, generated where the job has none). */
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
    public CompletableFuture<ClaimBatch> claimAsync(ClaimOptions o) {
        return Claim.call(redis, keys, partition, o);
    }

    @Override
    public CompletableFuture<List<Ack>> completeAllAsync(List<Lease> leases) {
        return Complete.call(redis, keys, settings.doneRetention(), leases);
    }

    @Override
    public CompletableFuture<FailResult> failAsync(Lease lease, String error, boolean retryable, Duration backoff) {
        return failAsync(lease, error, retryable, backoff, settings.retryPolicy().maxAttempts());
    }

    /** {@link #failAsync(Lease, String, boolean, Duration)} where jobs without their own max attempts use {@code defaultMax}. */
    public CompletableFuture<FailResult> failAsync(Lease lease, String error, boolean retryable, Duration backoff, int defaultMax) {
        Validation.delay("backoff", backoff);
        return Fail.call(redis, keys, lease, error, retryable, backoff, defaultMax);
    }

    @Override
    public CompletableFuture<RenewResult> renewAsync(List<Lease> leases, Duration lease) {
        Validation.positive("lease", lease);
        return Renew.call(redis, keys, leases, lease);
    }

    @Override
    CompletableFuture<List<Ack>> releaseAsync(List<Lease> leases) {
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
        return redis.await(Cancel.call(redis, keys, id), "cancel");
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
        while (true) {
            long[] step = redis.await(RetryDead.step(redis, keys, Purge.STEP), "retry");
            moved += step[0];
            if (step[0] == 0 || step[1] == 0) {
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
        return new CheckReport(records, entries, List.copyOf(problems));
    }
}
