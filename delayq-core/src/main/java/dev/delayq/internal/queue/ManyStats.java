package dev.delayq.internal.queue;

import dev.delayq.QueueStats;
import dev.delayq.internal.Keys;
import dev.delayq.internal.base.ScriptLimits;
import dev.delayq.internal.ops.Stats;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.RedisErrors;
import dev.delayq.internal.redis.Slots;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The stats of many queues in few requests ({@code stats_many.lua}): every partition of every queue, in calls of at
 * most {@link ScriptLimits#MAX_STATS_MANY} partitions, all sent before any answer is awaited. On a single node or
 * behind Sentinel that is ceil(partitions / {@value ScriptLimits#MAX_STATS_MANY}) calls (2,001 one-partition queues:
 * 9); on a Redis Cluster a call's keys must share one slot, so the partitions are grouped by slot (their hash tag)
 * and each slot touched costs at least one call. A partition whose keys are of a type delayq does not write fails its
 * queue's future only.
 */
public final class ManyStats {
    private ManyStats() {
    }

    private record Part(Partition partition, int queue) {
    }

    /**
     * The stats of each of {@code queues}, by queue name in that order: a future per queue, failed
     * ({@link dev.delayq.DelayQException}) when that queue cannot be read, the others answered; all fail alike when
     * Redis is unreachable or too slow.
     */
    public static Map<String, CompletableFuture<QueueStats>> statsAsync(List<RedisQueue> queues) {
        Map<String, CompletableFuture<QueueStats>> out = new LinkedHashMap<>();
        List<List<CompletableFuture<QueueStats>>> perQueue = new ArrayList<>(queues.size());
        Map<Object, List<Part>> groups = new LinkedHashMap<>();
        for (int q = 0; q < queues.size(); q++) {
            List<CompletableFuture<QueueStats>> parts = new ArrayList<>();
            perQueue.add(parts);
            for (Partition p : queues.get(q).partitions()) {
                Object group = Slots.callGroup(p.backend(), p.keys().meta());
                groups.computeIfAbsent(group, g -> new ArrayList<>()).add(new Part(p, q));
                parts.add(new CompletableFuture<>());
            }
        }
        int[] next = new int[queues.size()];
        for (List<Part> group : groups.values()) {
            for (int from = 0; from < group.size(); from += ScriptLimits.MAX_STATS_MANY) {
                List<Part> batch = group.subList(from, Math.min(group.size(), from + ScriptLimits.MAX_STATS_MANY));
                List<Keys> keys = new ArrayList<>(batch.size());
                List<String> names = new ArrayList<>(batch.size());
                List<CompletableFuture<QueueStats>> targets = new ArrayList<>(batch.size());
                for (Part p : batch) {
                    keys.add(p.partition().keys());
                    names.add(queues.get(p.queue()).name());
                    targets.add(perQueue.get(p.queue()).get(next[p.queue()]++));
                }
                RedisBackend backend = batch.get(0).partition().backend();
                RedisErrors.translated(Stats.many(backend, keys, names), "stats", backend).whenComplete((r, e) -> {
                    for (int i = 0; i < targets.size(); i++) {
                        if (e != null) {
                            targets.get(i).completeExceptionally(e);
                        } else if (r.get(i) instanceof QueueStats s) {
                            targets.get(i).complete(s);
                        } else {
                            targets.get(i).completeExceptionally((Throwable) r.get(i));
                        }
                    }
                });
            }
        }
        for (int q = 0; q < queues.size(); q++) {
            List<CompletableFuture<QueueStats>> parts = perQueue.get(q);
            String name = queues.get(q).name();
            CompletableFuture<QueueStats> f = parts.size() == 1 ? parts.get(0)
                    : CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new))
                            .thenApply(v -> PartitionTotals.merge(name, parts.stream().map(CompletableFuture::join).toList()));
            out.put(name, f);
        }
        return out;
    }
}
