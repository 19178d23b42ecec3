package dev.delayq.internal.queue;

import dev.delayq.Ack;
import dev.delayq.internal.ClientLifecycle;
import dev.delayq.internal.ClientSettings;
import dev.delayq.internal.Keys;
import dev.delayq.internal.Validation;
import dev.delayq.internal.redis.RedisBackend;
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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * A queue split into P partitions, each a complete queue of its own ({@link SingleQueue}) with its own hash
 * tag {@code {<name>#<i>}}, so that on a Redis Cluster the partitions spread over the masters and one hot
 * queue uses all of them.
 *
 * <p>Routing: a job lives in partition {@code crc32(id) mod P}, so an id is one job queue-wide and every lookup by
 * id asks one partition. A dedupe key must hold queue-wide too, so a job with a dedupe key must live in the
 * partition of its dedupe key as well: a job whose id was generated gets the suffix {@code ~n} (the smallest n that
 * puts it there; the same for the same job, so a retried enqueue finds it); a caller's id that routes elsewhere
 * than its dedupe key is refused with an error that says so. Everything else (stats, list, retry, purge, check,
 * recovery) covers every partition; list merges them in index order.
 */
public final class PartitionedQueue extends SyncQueue {
    private final String name;
    private final List<SingleQueue> parts;
    private final ClientSettings settings;
    private final AtomicInteger nextClaim = new AtomicInteger();

    public PartitionedQueue(RedisBackend redis, Keys keys, ClientSettings settings, int partitions, ClientLifecycle lifecycle) {
        super(redis);
        this.name = keys.queue();
        this.settings = settings;
        List<SingleQueue> list = new ArrayList<>(partitions);
        for (int i = 0; i < partitions; i++) {
            list.add(new SingleQueue(redis, keys.partition(i), settings, name, i, lifecycle));
        }
        this.parts = List.copyOf(list);
    }

    @Override
    public String name() {
        return name;
    }

    /** The partitions, in order. */
    public List<SingleQueue> partitions() {
        return parts;
    }

    /** The partition of a job id or dedupe key. */
    public int partitionOf(String routingKey) {
        return Routing.partitionOf(routingKey, parts.size());
    }

    // ---- enqueue ----------------------------------------------------------------------------------------

    @Override
    CompletableFuture<List<EnqueueResult>> startEnqueueAll(List<Job> jobs) {
        SingleQueue.checkJobs(jobs, settings);
        String[] ids = new String[jobs.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = Routing.storedId(jobs.get(i), parts.size(), name);
        }
        if (jobs.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        List<List<Integer>> byPart = new ArrayList<>();
        for (int p = 0; p < parts.size(); p++) {
            byPart.add(new ArrayList<>());
        }
        for (int i = 0; i < jobs.size(); i++) {
            Job job = jobs.get(i);
            byPart.get(partitionOf(ids[i])).add(i);
        }
        EnqueueResult[] out = new EnqueueResult[jobs.size()];
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        for (int p = 0; p < parts.size(); p++) {
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
            calls.add(parts.get(p).enqueueAllAsync(sub, subIds).thenAccept(results -> {
                for (int k = 0; k < idx.size(); k++) {
                    out[idx.get(k)] = results.get(k);
                }
            }));
        }
        return CompletableFuture.allOf(calls.toArray(new CompletableFuture[0])).thenApply(v -> Arrays.asList(out));
    }

    // ---- claim and the fenced operations ----------------------------------------------------------------

    /**
     * Claims from the partitions in turn, starting after the one the previous claim started with, until
     * {@code options.max()} jobs are leased or every partition was asked once.
     */
    @Override
    CompletableFuture<ClaimBatch> startClaim(ClaimOptions options) {
        int start = Math.floorMod(nextClaim.getAndIncrement(), parts.size());
        return RoundRobinClaim.from(parts, start, options);
    }

    @Override
    CompletableFuture<List<Ack>> startComplete(List<Lease> leases) {
        return grouped(leases, (p, sub) -> parts.get(p).completeAllAsync(sub));
    }

    @Override
    CompletableFuture<FailResult> startFail(Lease lease, String error, boolean retryable, Duration backoff) {
        return part(lease).failAsync(lease, error, retryable, backoff);
    }

    @Override
    CompletableFuture<RenewResult> startRenew(List<Lease> leases, Duration lease) {
        long[] expiry = {Long.MAX_VALUE};
        return grouped(leases, (p, sub) -> parts.get(p).renewAsync(sub, lease).thenApply(r -> {
            synchronized (expiry) {
                expiry[0] = Math.min(expiry[0], r.leaseUntilMillis()); // the earliest: true of every renewed lease
            }
            return r.acks();
        })).thenApply(acks -> new RenewResult(leases.isEmpty() ? 0 : expiry[0], acks));
    }

    @Override
    CompletableFuture<List<Ack>> startRelease(List<Lease> leases) {
        return grouped(leases, (p, sub) -> parts.get(p).releaseAsync(sub));
    }

    @Override
    public CompletableFuture<Ack> progressAsync(Lease lease, String progress) {
        return guard(() -> part(lease).progressAsync(lease, progress));
    }

    @Override
    public RecoverResult recover(int limit, RetryPolicy policy) {
        int recovered = 0;
        int dead = 0;
        long next = -1;
        for (SingleQueue p : parts) {
            RecoverResult r = p.recover(limit, policy);
            recovered += r.recovered();
            dead += r.dead();
            next = RoundRobinClaim.earliest(next, r.nextExpiryMillis());
        }
        return new RecoverResult(recovered, dead, next);
    }

    private SingleQueue part(Lease lease) {
        if (lease.partition() < 0 || lease.partition() >= parts.size()) {
            throw new IllegalArgumentException("lease of job '" + lease.id() + "' names partition " + lease.partition()
                    + ": queue '" + name + "' has partitions 0 to " + (parts.size() - 1));
        }
        return parts.get(lease.partition());
    }

    /** Runs {@code call} once per partition on its leases and puts the answers back in the leases' order. */
    private <T> CompletableFuture<List<T>> grouped(List<Lease> leases, PartCall<T> call) {
        Map<Integer, List<Integer>> byPart = new LinkedHashMap<>();
        for (int i = 0; i < leases.size(); i++) {
            byPart.computeIfAbsent(part(leases.get(i)).partition(), k -> new ArrayList<>()).add(i);
        }
        List<T> out = new ArrayList<>(java.util.Collections.nCopies(leases.size(), null));
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        byPart.forEach((p, idx) -> {
            List<Lease> sub = new ArrayList<>(idx.size());
            idx.forEach(i -> sub.add(leases.get(i)));
            calls.add(call.run(p, sub).thenAccept(answers -> {
                synchronized (out) {
                    for (int k = 0; k < idx.size(); k++) {
                        out.set(idx.get(k), answers.get(k));
                    }
                }
            }));
        });
        return CompletableFuture.allOf(calls.toArray(new CompletableFuture[0])).thenApply(v -> out);
    }

    private interface PartCall<T> {
        CompletableFuture<List<T>> run(int partition, List<Lease> leases);
    }

    // ---- administration ---------------------------------------------------------------------------------

    /** The partition holding job {@code id} (every job lives in its id's partition). */
    private SingleQueue home(String id) {
        Validation.jobId(id);
        return parts.get(partitionOf(id));
    }

    @Override
    public ChangeResult cancel(String id) {
        return home(id).cancel(id);
    }

    @Override
    public ChangeResult cancelByDedupeKey(String key) {
        Validation.dedupeKey(key);
        return parts.get(partitionOf(key)).cancelByDedupeKey(key);
    }

    @Override
    public ChangeResult delete(String id) {
        return home(id).delete(id);
    }

    @Override
    public ChangeResult reschedule(String id, Duration delay) {
        return home(id).reschedule(id, delay);
    }

    @Override
    public ChangeResult reschedule(String id, Instant at) {
        return home(id).reschedule(id, at);
    }

    @Override
    public Optional<JobInfo> get(String id) {
        return home(id).get(id);
    }

    @Override
    public ChangeResult retryDead(String id) {
        return home(id).retryDead(id);
    }

    /**
     * Limits of a partitioned queue: each partition enforces its share (the limit divided by the partition count, the
     * remainder spread over the first partitions), so the queue as a whole never exceeds the limit; a limit below the
     * partition count is refused (a partition with a share of 0 could never run a job).
     */
    @Override
    public void limits(Limits limits) {
        PartitionTotals.splitLimits(name, parts, limits);
    }

    @Override
    public Limits limits() {
        return stats().limits();
    }

    @Override
    public void events(boolean enabled) {
        parts.forEach(q -> q.events(enabled));
    }

    @Override
    public void events(int cap) {
        parts.forEach(q -> q.events(cap));
    }

    @Override
    public Events events() {
        return new StreamEvents(parts, () -> stats().eventsCap() > 0);
    }

    /** Pauses every partition (each one's claims see its own flag). */
    @Override
    public boolean pause() {
        boolean changed = false;
        for (SingleQueue p : parts) {
            changed |= p.pause();
        }
        return changed;
    }

    @Override
    public boolean resume() {
        boolean changed = false;
        for (SingleQueue p : parts) {
            changed |= p.resume();
        }
        return changed;
    }

    @Override
    public long retryAllDead() {
        long n = 0;
        for (SingleQueue p : parts) {
            n += p.retryAllDead();
        }
        return n;
    }

    @Override
    public List<JobInfo> list(JobState state, long offset, int limit) {
        Validation.range("limit", limit, 1, 10_000);
        if (offset < 0) {
            throw new IllegalArgumentException("offset is " + offset + ": it must be zero or positive");
        }
        return stream(state).skip(offset).limit(limit).toList();
    }

    /** Every partition's jobs in {@code state}, merged in index order (due time, lease expiry or finish time). */
    @Override
    public Stream<JobInfo> stream(JobState state) {
        if (state == null) {
            throw new IllegalArgumentException("state must not be null: use scheduled, processing, done or dead");
        }
        List<Iterator<JobInfo>> sources = new ArrayList<>();
        for (SingleQueue p : parts) {
            sources.add(p.stream(state).iterator());
        }
        Iterator<JobInfo> merged = new MergedIterator<>(sources, Comparator.comparingLong(j -> indexScore(j, state)));
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(merged, Spliterator.ORDERED | Spliterator.NONNULL), false);
    }

    private static long indexScore(JobInfo j, JobState state) {
        return switch (state) {
            case SCHEDULED -> j.dueAtMillis();
            case PROCESSING -> j.leaseUntilMillis();
            case DONE, DEAD -> j.finishedAtMillis();
        };
    }

    @Override
    public PurgeResult purge() {
        return PartitionTotals.purge(parts, SingleQueue::purge);
    }

    @Override
    public PurgeResult purge(Duration olderThan) {
        return PartitionTotals.purge(parts, p -> p.purge(olderThan));
    }

    /** The partitions' histories, minute by minute: counts added, lag percentiles the worst partition's. */
    @Override
    public List<MinuteStats> history(int minutes) {
        return PartitionTotals.history(parts, minutes);
    }

    @Override
    public QueueStats stats() {
        return PartitionTotals.stats(name, parts);
    }

    @Override
    public CheckReport check() {
        CheckReport r = PartitionTotals.check(parts);
        List<String> stray = StrayKeySets.find(parts.get(0).backend(), parts.get(0).keys().prefix(), name, parts.size());
        if (stray.isEmpty()) {
            return r;
        }
        List<String> problems = new ArrayList<>(r.problems());
        problems.addAll(stray);
        return new CheckReport(r.records(), r.entries(), List.copyOf(problems));
    }
}
