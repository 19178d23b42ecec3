package dev.delayq.internal.ops;

import static dev.delayq.internal.ops.Args.ascii;
import static dev.delayq.internal.ops.Args.num;
import static dev.delayq.internal.ops.Args.utf8;

import dev.delayq.Durability;
import dev.delayq.EnqueueResult;
import dev.delayq.Job;
import dev.delayq.JobState;
import dev.delayq.internal.Keys;
import dev.delayq.internal.base.Validation;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** {@code enqueue.lua}: one batch of jobs, atomic; answers with the duplicates only. */
public final class Enqueue {
    private static final byte[] GENERATED = {'g'};

    private Enqueue() {
    }

    /**
     * Enqueues {@code batch} in one script call under the ids {@code ids} (each job's own, or on a partitioned queue
     * one adjusted to its partition), waiting for {@code durability} when it asks to.
     */
    public static CompletableFuture<List<EnqueueResult>> call(RedisBackend redis, Keys keys, Durability durability,
                                                              List<Job> batch, String[] ids) {
        byte[][] k = {keys.jobs(), keys.due(), keys.meta(), keys.dedupe(), keys.dedupeHolds(), keys.history(), keys.prio(),
                keys.events()};
        byte[][] args = new byte[2 + 4 * batch.size()][];
        args[0] = keys.wakeChannel();
        args[1] = num(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            Job job = batch.get(i);
            int a = 2 + 4 * i;
            args[a] = utf8(ids[i]);
            args[a + 1] = job.payloadUnsafe();
            args[a + 2] = ascii(job.runAt() != null ? "a" + job.runAt().toEpochMilli() : "d" + job.delay().toMillis());
            args[a + 3] = options(job);
        }
        CompletableFuture<List<Object>> call = durability.waits()
                ? redis.evalDurable(Script.ENQUEUE, durability.localAof(), durability.replicas(), durability.timeout(), k, args)
                .thenApply(r -> ReplyCode.checked(r, Script.ENQUEUE.fileName()))
                : Reply.eval(redis, Script.ENQUEUE, k, args);
        return call.thenApply(reply -> decode(reply, batch, ids));
    }

    /** "" for a job with none of the optional fields, "g" for such a job with a generated id, else the fields. */
    private static byte[] options(Job job) {
        if (job.maxAttempts() == 0 && job.name() == null && job.dedupeKey() == null && job.timeout() == null
                && job.priority() == 0) {
            return job.idGenerated() ? GENERATED : Args.EMPTY;
        }
        String sep = "\0";
        return utf8((job.idGenerated() ? "1" : "0") + sep
                + (job.maxAttempts() > 0 ? Integer.toString(job.maxAttempts()) : "") + sep
                + (job.name() != null ? job.name() : "") + sep
                + (job.dedupeKey() != null ? job.dedupeKey() : "") + sep
                + (job.dedupeKey() != null ? Long.toString(job.dedupeTtl().toMillis()) : "") + sep
                + (job.priority() > 0 ? Integer.toString(job.priority()) : "") + sep
                + (job.timeout() != null ? Long.toString(job.timeout().toMillis()) : ""));
    }

    private static List<EnqueueResult> decode(List<Object> reply, List<Job> batch, String[] ids) {
        if (reply.size() == 2 && Reply.code(reply) == ReplyCode.DUE_OUT_OF_RANGE) {
            Job bad = batch.get(Reply.asInt(reply.get(1)) - 1);
            throw new IllegalArgumentException("due time of job '" + bad.id() + "' ("
                    + (bad.runAt() != null ? "at " + bad.runAt() : "delay " + Validation.human(bad.delay()))
                    + ") falls beyond year 9999 on the Redis clock");
        }
        EnqueueResult[] out = new EnqueueResult[batch.size()];
        for (int i = 0; i + 3 < reply.size(); i += 4) {
            int index = Reply.asInt(reply.get(i)) - 1;
            int state = Reply.asInt(reply.get(i + 3));
            out[index] = new EnqueueResult(Reply.str(reply.get(i + 1)), false, state == 0 ? null : JobState.ofCode(state),
                    Reply.asLong(reply.get(i + 2)));
        }
        for (int i = 0; i < out.length; i++) {
            if (out[i] == null) {
                out[i] = new EnqueueResult(ids[i], true);
            }
        }
        return Arrays.asList(out);
    }
}
