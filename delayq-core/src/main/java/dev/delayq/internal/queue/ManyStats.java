package dev.delayq.internal.queue;

import dev.delayq.QueueStats;
import dev.delayq.internal.Keys;
import dev.delayq.internal.base.ScriptLimits;
import dev.delayq.internal.ops.Stats;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.RedisErrors;
import dev.delayq.internal.redis.Slots;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The stats of many queues, with their live worker counts, in few requests ({@code stats_many.lua}): every partition
 * of every queue and every queue's worker registry, in calls of at most {@link ScriptLimits#MAX_STATS_MANY} entries,
 * all sent before any answer is awaited. A queue without partitions is one entry (its registry is in its key set); a
 * partitioned queue is one entry per partition and one for its registry (of its plain key set). On a single node or
 * behind Sentinel that is ceil(entries / {@value ScriptLimits#MAX_STATS_MANY}) calls (2,001 one-partition queues: 9);
 * on a Redis Cluster a call's keys must share one slot, so the entries are grouped by slot (their hash tag) and each
 * slot touched costs at least one call. An entry whose keys are of a type delayq does not write fails its queue's
 * future only.
 */
public final class ManyStats {
    private ManyStats() {
    }

    private record Part(Stats.Entry entry, RedisBackend backend, CompletableFuture<Object> target) {
    }

    /**
     * The stats of each of {@code queues}, by queue name in that order, each with {@link QueueStats#workers()}: a future
     * per queue, failed ({@link dev.delayq.DelayQException}) when that queue cannot be read, the others answered; all
     * fail alike when Redis is unreachable or too slow.
     */
    public static Map<String, CompletableFuture<QueueStats>> statsAsync(List<RedisQueue> queues) {
        Map<String, CompletableFuture<QueueStats>> out = new LinkedHashMap<>();
        Map<Object, List<Part>> groups = new LinkedHashMap<>();
        List<List<CompletableFuture<Object>>> perQueue = new ArrayList<>(queues.size());
        for (RedisQueue queue : queues) {
            List<CompletableFuture<Object>> parts = new ArrayList<>();
            perQueue.add(parts);
            List<Partition> partitions = queue.partitions();
            Partition first = partitions.get(0);
            Keys registry = new Keys(first.keys().prefix(), queue.name());
            boolean together = partitions.size() == 1 && Arrays.equals(first.keys().workers(), registry.workers());
            for (Partition p : partitions) {
                add(groups, parts, new Stats.Entry(p.keys(), queue.name(), true, together), p.backend(), p.keys().meta());
            }
            if (!together) {
                add(groups, parts, new Stats.Entry(registry, queue.name(), false, true), first.backend(), registry.workers());
            }
        }
        for (List<Part> group : groups.values()) {
            for (int from = 0; from < group.size(); from += ScriptLimits.MAX_STATS_MANY) {
                List<Part> batch = group.subList(from, Math.min(group.size(), from + ScriptLimits.MAX_STATS_MANY));
                RedisBackend backend = batch.get(0).backend();
                List<Stats.Entry> entries = batch.stream().map(Part::entry).toList();
                RedisErrors.translated(Stats.many(backend, entries), "stats", backend).whenComplete((r, e) -> {
                    for (int i = 0; i < batch.size(); i++) {
                        CompletableFuture<Object> target = batch.get(i).target();
                        if (e != null) {
                            target.completeExceptionally(e);
                        } else if (r.get(i) instanceof Throwable t) {
                            target.completeExceptionally(t);
                        } else {
                            target.complete(r.get(i));
                        }
                    }
                });
            }
        }
        for (int q = 0; q < queues.size(); q++) {
            List<CompletableFuture<Object>> parts = perQueue.get(q);
            String name = queues.get(q).name();
            out.put(name, CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(v -> merge(name, parts)));
        }
        return out;
    }

    private static void add(Map<Object, List<Part>> groups, List<CompletableFuture<Object>> parts, Stats.Entry entry,
                            RedisBackend backend, byte[] slotKey) {
        CompletableFuture<Object> target = new CompletableFuture<>();
        parts.add(target);
        groups.computeIfAbsent(Slots.callGroup(backend, slotKey), g -> new ArrayList<>()).add(new Part(entry, backend, target));
    }

    /** One queue's answers: its partitions' stats (merged when more than one) and, apart, its worker count. */
    private static QueueStats merge(String name, List<CompletableFuture<Object>> parts) {
        List<QueueStats> stats = new ArrayList<>(parts.size());
        long workers = -1;
        for (CompletableFuture<Object> f : parts) {
            Object v = f.join();
            if (v instanceof QueueStats s) {
                stats.add(s);
            } else {
                workers = (Long) v;
            }
        }
        if (stats.size() == 1 && workers < 0) {
            return stats.get(0);
        }
        QueueStats merged = stats.size() == 1 ? stats.get(0) : PartitionTotals.merge(name, stats);
        return merged.withWorkers(workers);
    }
}
