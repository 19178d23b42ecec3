package dev.delayq.internal.queue;

import dev.delayq.Ack;
import dev.delayq.ChangeResult;
import dev.delayq.ClaimBatch;
import dev.delayq.ClaimOptions;
import dev.delayq.EnqueueResult;
import dev.delayq.FailResult;
import dev.delayq.Job;
import dev.delayq.JobInfo;
import dev.delayq.JobQueue;
import dev.delayq.Lease;
import dev.delayq.Leases;
import dev.delayq.QueueInspector;
import dev.delayq.RecoverResult;
import dev.delayq.RenewResult;
import dev.delayq.RetryPolicy;
import dev.delayq.Schedules;
import dev.delayq.internal.ClientSettings;
import dev.delayq.internal.base.Validation;
import dev.delayq.internal.ops.Progress;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.trace.JobTracing;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The one queue implementation: P partitions ({@link Partitions}; P = 1 is a queue without partitions), each
 * operation validated here once and routed as {@link Partitions} declares. The producer's operations and the worker's
 * primitives live here; the operator's are in {@link RedisInspector}.
 *
 * <p>Routing of a partitioned queue: a job lives in partition {@code crc32(id) mod P}, so an id is one job queue-wide
 * and every lookup by id asks one partition. A dedupe key must hold queue-wide too, so a job with a dedupe key must live
 * in the partition of its dedupe key as well: a job whose id was generated gets the suffix {@code ~n} (the smallest n
 * that puts it there; the same for the same job, so a retried enqueue finds it); a caller's id that routes elsewhere
 * than its dedupe key is refused with an error that says so ({@link Routing}).
 */
public final class RedisQueue implements JobQueue, Leases {
    private final RedisBackend redis;
    private final ClientSettings settings;
    private final Partitions parts;
    private final AtomicInteger nextClaim = new AtomicInteger();
    private final RedisInspector inspector;

    RedisQueue(RedisBackend redis, ClientSettings settings, Partitions parts) {
        this.redis = redis;
        this.settings = settings;
        this.parts = parts;
        this.inspector = new RedisInspector(settings, parts, this);
    }

    /**
     * The engine behind a queue this client opened, for the worker runtime.
     *
     * @throws IllegalArgumentException when {@code queue} did not come from {@code DelayQ.queue(name)}
     */
    public static RedisQueue of(JobQueue queue) {
        if (queue == null || queue.getClass() != RedisQueue.class) {
            throw new IllegalArgumentException("queue must come from DelayQ.queue(name), got " + queue);
        }
        return (RedisQueue) queue;
    }

    @Override
    public String name() {
        return parts.name();
    }

    /** The partitions, in order (one for a queue without partitions). */
    public List<Partition> partitions() {
        return parts.all();
    }

    /** The partition number of a job id, dedupe key or schedule name (0 on a queue without partitions). */
    public int partitionOf(String key) {
        return parts.indexOf(key);
    }

    /**
     * Partition {@code p} alone, as a queue of its own: every operation reaches that key set only (for tests and tools
     * that look at one key set; a queue without partitions has partition 0, itself).
     */
    public RedisQueue partition(int p) {
        return new RedisQueue(redis, settings, parts.only(p));
    }

    /** The client settings. */
    public ClientSettings settings() {
        return settings;
    }

    @Override
    public Leases leases() {
        return this;
    }

    @Override
    public QueueInspector inspector() {
        return inspector;
    }

    @Override
    public Schedules schedules() {
        return new CheckedSchedules(new QueueSchedules(name(), parts.all()));
    }

    /** Runs {@code start}, failing the future (never throwing) when it throws: an async method never throws. */
    static <T> CompletableFuture<T> guard(Supplier<CompletableFuture<T>> start) {
        try {
            return start.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    // ---- producing --------------------------------------------------------------------------------------------

    @Override
    public EnqueueResult enqueue(Job job) {
        return redis.await(enqueueAsync(job), "enqueue");
    }

    @Override
    public CompletableFuture<EnqueueResult> enqueueAsync(Job job) {
        return guard(() -> {
            if (job == null) {
                throw new IllegalArgumentException("job must not be null");
            }
            return traced(Collections.singletonList(job)).thenApply(r -> r.get(0));
        });
    }

    @Override
    public List<EnqueueResult> enqueueAll(List<Job> jobs) {
        return redis.await(enqueueAllAsync(jobs), "enqueue");
    }

    @Override
    public CompletableFuture<List<EnqueueResult>> enqueueAllAsync(List<Job> jobs) {
        return guard(() -> traced(jobs));
    }

    /** Enqueues {@code jobs} in a producer span when tracing is on ({@link JobTracing}). */
    private CompletableFuture<List<EnqueueResult>> traced(List<Job> jobs) {
        JobTracing tracing = settings.tracing();
        return tracing == JobTracing.OFF ? enqueueMeasured(jobs) : tracing.send(name(), jobs, this::enqueueMeasured);
    }

    /** {@link #enqueueChecked}, reported to the client's {@link dev.delayq.ProducerMetrics} (nothing done without). */
    private CompletableFuture<List<EnqueueResult>> enqueueMeasured(List<Job> jobs) {
        return EnqueueMeter.measure(settings.producerMetrics(), name(), jobs == null ? 0 : jobs.size(),
                () -> enqueueChecked(jobs));
    }

    /** Enqueues {@code jobs} into their partitions (one call per partition), the results in the jobs' order. */
    private CompletableFuture<List<EnqueueResult>> enqueueChecked(List<Job> jobs) {
        checkJobs(jobs);
        int count = parts.count();
        String[] ids = new String[jobs.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = count == 1 ? jobs.get(i).id() : Routing.storedId(jobs.get(i), count, name());
        }
        if (jobs.stream().anyMatch(j -> !j.afterIn().isEmpty())) {
            return RemoteParents.enqueue(redis, parts, jobs, ids);
        }
        if (count == 1 || jobs.isEmpty()) {
            return parts.first().enqueueAll(jobs, ids);
        }
        List<List<Integer>> byPart = new ArrayList<>(count);
        for (int p = 0; p < count; p++) {
            byPart.add(new ArrayList<>());
        }
        for (int i = 0; i < jobs.size(); i++) {
            byPart.get(parts.indexOf(ids[i])).add(i);
        }
        EnqueueResult[] out = new EnqueueResult[jobs.size()];
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        for (int p = 0; p < count; p++) {
            List<Integer> idx = byPart.get(p);
            if (idx.isEmpty()) {
                continue;
            }
            List<Job> sub = new ArrayList<>(idx.size());
            String[] subIds = new String[idx.size()];
            for (int k = 0; k < idx.size(); k++) {
                sub.add(jobs.get(idx.get(k)));
                subIds[k] = ids[idx.get(k)];
            }
            calls.add(parts.all().get(p).enqueueAll(sub, subIds).thenAccept(results -> {
                for (int k = 0; k < idx.size(); k++) {
                    out[idx.get(k)] = results.get(k);
                }
            }));
        }
        return CompletableFuture.allOf(calls.toArray(new CompletableFuture[0])).thenApply(v -> Arrays.asList(out));
    }

    /**
     * Checks the jobs against the client's limits.
     *
     * @throws IllegalArgumentException naming the first invalid job by its id and position
     */
    private void checkJobs(List<Job> jobs) {
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
            RemoteParents.checkLocalParents(job, name(), parts.count());
        }
    }

    // ---- changing a job by id ---------------------------------------------------------------------------------

    @Override
    public ChangeResult cancel(String id) {
        Validation.jobId(id);
        return parts.of(id).cancel(id);
    }

    @Override
    public ChangeResult cancelByDedupeKey(String key) {
        Validation.dedupeKey(key);
        return parts.of(key).cancelByDedupeKey(key);
    }

    @Override
    public ChangeResult reschedule(String id, Duration delay) {
        Validation.jobId(id);
        Validation.delay("delay", delay);
        return parts.of(id).reschedule(id, delay, null);
    }

    @Override
    public ChangeResult reschedule(String id, Instant at) {
        Validation.jobId(id);
        Validation.instant("instant", at);
        return parts.of(id).reschedule(id, null, at);
    }

    @Override
    public Optional<JobInfo> get(String id) {
        Validation.jobId(id);
        return parts.of(id).get(id);
    }

    // ---- the worker's primitives ------------------------------------------------------------------------------

    /**
     * Claims from the partitions in turn, starting after the one the previous claim started with, until
     * {@code options.max()} jobs are leased or every partition was asked once.
     */
    @Override
    public CompletableFuture<ClaimBatch> claimAsync(ClaimOptions options) {
        return guard(() -> {
            if (options == null) {
                throw new IllegalArgumentException("claim options must not be null");
            }
            if (parts.count() == 1) {
                return parts.first().claimAsync(options);
            }
            return RoundRobinClaim.from(parts.all(), Math.floorMod(nextClaim.getAndIncrement(), parts.count()), options);
        });
    }

    @Override
    public ClaimBatch claim(ClaimOptions options) {
        return redis.await(claimAsync(options), "claim");
    }

    @Override
    public CompletableFuture<List<Ack>> completeAllAsync(List<Lease> leases) {
        return guard(() -> parts.byLease(checkLeases(leases), Partition::completeAllAsync));
    }

    @Override
    public Ack complete(Lease lease, byte[] result) {
        byte[] r = dev.delayq.internal.base.ResultLimit.checked(lease.id(), result);
        return redis.await(guard(() -> parts.complete(checkLeases(Collections.singletonList(lease)).get(0), r)), "complete").get(0);
    }

    @Override
    public CompletableFuture<FailResult> failAsync(Lease lease, String error, boolean retryable, Duration backoff) {
        return failAsync(lease, error, retryable, backoff, settings.retryPolicy().maxAttempts());
    }

    /** {@link #failAsync(Lease, String, boolean, Duration)} where jobs without their own max attempts use {@code defaultMax}. */
    public CompletableFuture<FailResult> failAsync(Lease lease, String error, boolean retryable, Duration backoff, int defaultMax) {
        return guard(() -> {
            if (lease == null) {
                throw new IllegalArgumentException("lease must not be null");
            }
            Validation.delay("backoff", backoff);
            return parts.of(lease).failAsync(lease, error, retryable, backoff, defaultMax);
        });
    }

    @Override
    public FailResult fail(Lease lease, String error, boolean retryable, Duration backoff) {
        return redis.await(failAsync(lease, error, retryable, backoff), "fail");
    }

    @Override
    public CompletableFuture<RenewResult> renewAsync(List<Lease> leases, Duration lease) {
        return guard(() -> {
            Validation.positive("lease", lease);
            checkLeases(leases);
            if (parts.count() == 1) {
                return parts.first().renewAsync(leases, lease);
            }
            long[] expiry = {Long.MAX_VALUE};
            return parts.byLease(leases, (p, sub) -> p.renewAsync(sub, lease).thenApply(r -> {
                synchronized (expiry) {
                    expiry[0] = Math.min(expiry[0], r.leaseUntilMillis()); // the earliest: true of every renewed lease
                }
                return r.acks();
            })).thenApply(acks -> new RenewResult(leases.isEmpty() ? 0 : expiry[0], acks));
        });
    }

    @Override
    public RenewResult renew(List<Lease> leases, Duration lease) {
        return redis.await(renewAsync(leases, lease), "renew");
    }

    /** Releases leases without blocking. */
    public CompletableFuture<List<Ack>> releaseAsync(List<Lease> leases) {
        return guard(() -> parts.byLease(checkLeases(leases), Partition::releaseAsync));
    }

    @Override
    public List<Ack> release(List<Lease> leases) {
        return redis.await(releaseAsync(leases), "release");
    }

    @Override
    public RecoverResult recover(int limit, RetryPolicy policy) {
        Validation.range("recover limit", limit, 1, ClaimOptions.MAX_BATCH);
        int recovered = 0;
        int dead = 0;
        long next = -1;
        for (Partition p : parts.all()) {
            RecoverResult r = p.recover(limit, policy);
            recovered += r.recovered();
            dead += r.dead();
            next = RoundRobinClaim.earliest(next, r.nextExpiryMillis());
        }
        return new RecoverResult(recovered, dead, next);
    }

    /**
     * Records a running job's progress (a percentage or a small JSON text, at most 4 KiB), fenced by its lease: refused
     * ({@link Ack#STALE}) once the lease is lost.
     */
    @Override
    public CompletableFuture<Ack> progressAsync(Lease lease, String progress) {
        return guard(() -> {
            if (lease == null) {
                throw new IllegalArgumentException("lease must not be null");
            }
            if (progress == null || progress.getBytes(StandardCharsets.UTF_8).length > Progress.MAX_BYTES) {
                throw new IllegalArgumentException("progress must be 0-" + Progress.MAX_BYTES + " bytes of text");
            }
            return parts.of(lease).progressAsync(lease, progress);
        });
    }

    private static List<Lease> checkLeases(List<Lease> leases) {
        if (leases == null) {
            throw new IllegalArgumentException("leases must not be null");
        }
        for (Lease l : leases) { // List.of(...).contains(null) would throw
            if (l == null) {
                throw new IllegalArgumentException("leases must not contain null");
            }
        }
        return leases;
    }
}
