package dev.delayq.internal.ops;

import static dev.delayq.internal.ops.Args.ascii;
import static dev.delayq.internal.ops.Args.num;
import static dev.delayq.internal.ops.Args.utf8;

import dev.delayq.Durability;
import dev.delayq.EnqueueResult;
import dev.delayq.Job;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** {@code enqueue.lua}: one batch of jobs, atomic; answers with the duplicates only. */
public final class Enqueue {
    private Enqueue() {
    }

    /**
     * Enqueues {@code batch} (whose ids are {@code ids[i]}, generated where the job has none) in one script call,
     * waiting for {@code durability} when it asks to.
     */
    public static CompletableFuture<List<EnqueueResult>> call(RedisBackend redis, Keys keys, Durability durability,
                                                              List<Job> batch, String[] ids) {
        List<byte[]> keyList = new ArrayList<>(3);
        keyList.add(keys.jobs());
        keyList.add(keys.due());
        keyList.add(keys.meta());
        Map<String, Integer> dedupeIndex = null;
        byte[][] args = new byte[2 + 4 * batch.size()][];
        args[0] = keys.wakeChannel();
        args[1] = num(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            Job job = batch.get(i);
            int a = 2 + 4 * i;
            boolean generated = job.id() == null;
            args[a] = utf8(ids[i]);
            args[a + 1] = job.payloadUnsafe();
            args[a + 2] = ascii(job.runAt() != null ? "a" + job.runAt().toEpochMilli() : "d" + job.delay().toMillis());
            int dk = 0;
            if (job.dedupeKey() != null) {
                if (dedupeIndex == null) {
                    dedupeIndex = new LinkedHashMap<>();
                }
                dk = dedupeIndex.computeIfAbsent(job.dedupeKey(), k -> {
                    keyList.add(keys.dedupe(k));
                    return keyList.size(); // Lua's KEYS is 1-based
                });
            }
            args[a + 3] = job.maxAttempts() == 0 && dk == 0 && !generated ? Args.EMPTY
                    : ascii(job.maxAttempts() + "," + dk + "," + (dk > 0 ? job.dedupeTtl().toMillis() : 0) + "," + (generated ? 1 : 0));
        }
        byte[][] keyArray = keyList.toArray(new byte[0][]);
        CompletableFuture<List<Object>> call = durability.waits()
                ? redis.evalDurable(Script.ENQUEUE, durability.localAof(), durability.replicas(), durability.timeout(), keyArray, args)
                : redis.eval(Script.ENQUEUE, keyArray, args);
        return call.thenApply(reply -> decode(reply, batch, ids));
    }

    private static List<EnqueueResult> decode(List<Object> reply, List<Job> batch, String[] ids) {
        if (reply.size() == 2 && Reply.asLong(reply.get(0)) == -5) {
            Job bad = batch.get((int) Reply.asLong(reply.get(1)) - 1);
            throw new IllegalArgumentException("due time of job " + (bad.id() != null ? "'" + bad.id() + "' " : "")
                    + "(delay " + bad.delay() + ") falls beyond year 9999 on the Redis clock");
        }
        EnqueueResult[] out = new EnqueueResult[batch.size()];
        for (int i = 0; i < reply.size(); i += 2) {
            int index = (int) Reply.asLong(reply.get(i)) - 1;
            out[index] = new EnqueueResult(Reply.str(reply.get(i + 1)), false);
        }
        for (int i = 0; i < out.length; i++) {
            if (out[i] == null) {
                out[i] = new EnqueueResult(ids[i], true);
            }
        }
        return Arrays.asList(out);
    }
}
