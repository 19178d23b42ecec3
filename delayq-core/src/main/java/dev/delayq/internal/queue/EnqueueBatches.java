package dev.delayq.internal.queue;

import dev.delayq.Durability;
import dev.delayq.EnqueueResult;
import dev.delayq.Job;
import dev.delayq.internal.Keys;
import dev.delayq.internal.ops.Enqueue;
import dev.delayq.internal.redis.RedisBackend;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A list of jobs cut into script calls (each atomic on its own, all pipelined), bounded so that one call never holds
 * Redis long: at most {@link #JOBS} jobs and {@link #BYTES} payload bytes per call (a call holds at least one job).
 */
final class EnqueueBatches {
    /** Jobs per enqueue script call. */
    static final int JOBS = 500;
    /** Payload bytes per enqueue script call. */
    static final int BYTES = 4 * 1024 * 1024;

    private EnqueueBatches() {
    }

    /** Enqueues {@code jobs} under {@code ids}; the results in the jobs' order. */
    static CompletableFuture<List<EnqueueResult>> send(RedisBackend redis, Keys keys, Durability durability, List<Job> jobs,
                                                       String[] ids, String[] remote) {
        List<CompletableFuture<List<EnqueueResult>>> calls = new ArrayList<>();
        int start = 0;
        while (start < jobs.size()) {
            int end = start;
            long bytes = 0;
            while (end < jobs.size() && end - start < JOBS
                    && (end == start || bytes + jobs.get(end).payloadUnsafe().length <= BYTES)) {
                bytes += jobs.get(end).payloadUnsafe().length;
                end++;
            }
            calls.add(Enqueue.call(redis, keys, durability, jobs.subList(start, end), Arrays.copyOfRange(ids, start, end),
                    remote == null ? null : Arrays.copyOfRange(remote, start, end)));
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
}
