package dev.delayq.internal.queue;

import dev.delayq.Ack;
import dev.delayq.CheckReport;
import dev.delayq.JobInfo;
import dev.delayq.JobState;
import dev.delayq.Lease;
import dev.delayq.MinuteStats;
import dev.delayq.PurgeResult;
import dev.delayq.QueueStats;
import dev.delayq.internal.ClientLifecycle;
import dev.delayq.internal.ClientSettings;
import dev.delayq.internal.Keys;
import dev.delayq.internal.ops.ListPage;
import dev.delayq.internal.redis.RedisBackend;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * A queue's P partitions (P = 1 for a queue without partitions) and the three ways an operation reaches them, declared
 * once: <b>by key</b> (a job id, dedupe key or schedule name lives in one partition, {@link Routing}), <b>by lease</b>
 * (a lease names its partition; a list of leases is split by partition and the answers put back in order), and
 * <b>fan-out</b> (every partition, the answers merged: summed, or interleaved in index order). With one partition each
 * way is a direct call, so a queue without partitions pays nothing for the routing.
 */
final class Partitions {
    private final String name;
    private final List<Partition> parts;
    /** Whether these are all of the queue's partitions (not one of them seen alone, {@link #only(int)}). */
    private final boolean whole;

    private Partitions(String name, List<Partition> parts, boolean whole) {
        this.name = name;
        this.parts = parts;
        this.whole = whole;
    }

    /**
     * The partitions of the queue {@code keys.queue()}: its own key set {@code {name}} when {@code count} is 1, else
     * the key sets {@code {name#0}} to {@code {name#count-1}}.
     */
    static Partitions open(RedisBackend redis, Keys keys, ClientSettings settings, int count, ClientLifecycle lifecycle) {
        String name = keys.queue();
        List<Partition> list = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            list.add(new Partition(redis, count == 1 ? keys : keys.partition(i), settings, name, i, lifecycle));
        }
        return new Partitions(name, List.copyOf(list), true);
    }

    /** Partition {@code p} alone: every operation then reaches that key set only. */
    Partitions only(int p) {
        if (p < 0 || p >= parts.size()) {
            throw new IllegalArgumentException("partition is " + p + ": queue '" + name + "' has partitions 0 to "
                    + (parts.size() - 1));
        }
        return new Partitions(name, List.of(parts.get(p)), false);
    }

    String name() {
        return name;
    }

    int count() {
        return parts.size();
    }

    List<Partition> all() {
        return parts;
    }

    Partition first() {
        return parts.get(0);
    }

    // ---- by key ----------------------------------------------------------------------------------------------------

    /** The partition number of a job id, dedupe key or schedule name. */
    int indexOf(String key) {
        return parts.size() == 1 ? 0 : Routing.partitionOf(key, parts.size());
    }

    /** The partition holding a job id, dedupe key or schedule name. */
    Partition of(String key) {
        return parts.get(indexOf(key));
    }

    // ---- by lease --------------------------------------------------------------------------------------------------

    /** The partition a lease names (a queue without partitions: its one key set, see {@link #byLease}). */
    Partition of(Lease lease) {
        if (parts.size() == 1) {
            return parts.get(0);
        }
        if (lease.partition() < 0 || lease.partition() >= parts.size()) {
            throw new IllegalArgumentException("lease of job '" + lease.id() + "' names partition " + lease.partition()
                    + ": queue '" + name + "' has partitions 0 to " + (parts.size() - 1));
        }
        return parts.get(lease.partition());
    }

    /** Completes the job of {@code lease}, leaving {@code result} (or {@code null}: none) with it. */
    CompletableFuture<List<Ack>> complete(Lease lease, byte[] result) {
        return of(lease).completeAllAsync(List.of(lease), result == null ? null : Map.of(lease, result.clone()));
    }

    /**
     * Runs {@code call} once per partition on its leases and puts the answers back in the leases' order. A queue without
     * partitions hands every lease to its one key set, whose scripts refuse a lease they did not grant (as stale).
     */
    <T> CompletableFuture<List<T>> byLease(List<Lease> leases, PartCall<T> call) {
        if (parts.size() == 1) {
            return call.run(parts.get(0), leases);
        }
        Map<Integer, List<Integer>> byPart = new LinkedHashMap<>();
        for (int i = 0; i < leases.size(); i++) {
            byPart.computeIfAbsent(of(leases.get(i)).partition(), k -> new ArrayList<>()).add(i);
        }
        List<T> out = new ArrayList<>(Collections.nCopies(leases.size(), null));
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        byPart.forEach((p, idx) -> {
            List<Lease> sub = new ArrayList<>(idx.size());
            idx.forEach(i -> sub.add(leases.get(i)));
            calls.add(call.run(parts.get(p), sub).thenAccept(answers -> {
                synchronized (out) {
                    for (int k = 0; k < idx.size(); k++) {
                        out.set(idx.get(k), answers.get(k));
                    }
                }
            }));
        });
        return CompletableFuture.allOf(calls.toArray(new CompletableFuture[0])).thenApply(v -> out);
    }

    interface PartCall<T> {
        CompletableFuture<List<T>> run(Partition partition, List<Lease> leases);
    }

    // ---- fan-out ---------------------------------------------------------------------------------------------------

    /** Every partition's jobs in {@code state}, merged in index order (due time, lease expiry or finish time). */
    Stream<JobInfo> stream(JobState state) {
        return stream(state, ListPage.WHOLE);
    }

    /** As {@link #stream(JobState)}, each payload cut to {@code preview} bytes by the scripts. */
    Stream<JobInfo> stream(JobState state, int preview) {
        if (parts.size() == 1) {
            return parts.get(0).stream(state, preview);
        }
        List<Iterator<JobInfo>> sources = new ArrayList<>();
        for (Partition p : parts) {
            sources.add(p.stream(state, preview).iterator());
        }
        Iterator<JobInfo> merged = new MergedIterator<>(sources, Comparator.comparingLong(j -> indexScore(j, state)));
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(merged, Spliterator.ORDERED | Spliterator.NONNULL), false);
    }

    /** A page of {@link #stream(JobState)}; with one partition read by rank from its index. */
    List<JobInfo> list(JobState state, long offset, int limit, int preview) {
        if (parts.size() == 1) {
            return parts.get(0).list(state, offset, limit, preview);
        }
        return stream(state, preview).skip(offset).limit(limit).toList();
    }

    private static long indexScore(JobInfo j, JobState state) {
        return switch (state) {
            case SCHEDULED -> j.dueAtMillis();
            case PROCESSING -> j.leaseUntilMillis();
            case DONE, DEAD -> j.finishedAtMillis();
            case WAITING -> j.enqueuedAtMillis();
        };
    }

    /** {@code op} on every partition, in order; true if it was true of any. */
    boolean any(Function<Partition, Boolean> op) {
        boolean any = false;
        for (Partition p : parts) {
            any |= op.apply(p);
        }
        return any;
    }

    /** The sum of {@code op} over every partition. */
    long sum(Function<Partition, Long> op) {
        long n = 0;
        for (Partition p : parts) {
            n += op.apply(p);
        }
        return n;
    }

    /** As {@link #stats()}, without waiting: every partition's script sent at once. */
    CompletableFuture<QueueStats> statsAsync() {
        if (parts.size() == 1) {
            return parts.get(0).statsAsync();
        }
        List<CompletableFuture<QueueStats>> all = parts.stream().map(Partition::statsAsync).toList();
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
                .thenApply(v -> PartitionTotals.merge(name, all.stream().map(CompletableFuture::join).toList()));
    }

    QueueStats stats() {
        return parts.size() == 1 ? parts.get(0).stats() : PartitionTotals.stats(name, parts);
    }

    List<MinuteStats> history(int minutes) {
        return parts.size() == 1 ? parts.get(0).history(minutes) : PartitionTotals.history(parts, p -> p.history(minutes));
    }

    List<MinuteStats> hourlyHistory(int hours) {
        return parts.size() == 1 ? parts.get(0).hourlyHistory(hours)
                : PartitionTotals.history(parts, p -> p.hourlyHistory(hours));
    }

    PurgeResult purge(long doneAgeMs, long deadAgeMs) {
        return PartitionTotals.purge(parts, p -> p.purge(doneAgeMs, deadAgeMs));
    }

    /**
     * Every partition's check (problems named by partition where there are several), and key sets of the queue that its
     * partition count does not cover.
     */
    CheckReport check() {
        CheckReport r = parts.size() == 1 ? parts.get(0).check() : PartitionTotals.check(parts);
        if (!whole) {
            return r;
        }
        Partition first = parts.get(0);
        List<String> stray = StrayKeySets.find(first.backend(), first.keys().prefix(), name, parts.size());
        if (stray.isEmpty()) {
            return r;
        }
        List<String> problems = new ArrayList<>(r.problems());
        problems.addAll(stray);
        return new CheckReport(r.records(), r.entries(), List.copyOf(problems));
    }
}
