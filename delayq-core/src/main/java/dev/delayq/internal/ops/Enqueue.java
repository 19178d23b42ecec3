package dev.delayq.internal.ops;

import static dev.delayq.internal.ops.Args.ascii;
import static dev.delayq.internal.ops.Args.num;
import static dev.delayq.internal.ops.Args.utf8;
import static dev.delayq.internal.ops.ScriptKey.DEDUPE;
import static dev.delayq.internal.ops.ScriptKey.DEDUPE_HOLDS;
import static dev.delayq.internal.ops.ScriptKey.DUE;
import static dev.delayq.internal.ops.ScriptKey.EVENTS;
import static dev.delayq.internal.ops.ScriptKey.HISTORY;
import static dev.delayq.internal.ops.ScriptKey.JOBS;
import static dev.delayq.internal.ops.ScriptKey.META;
import static dev.delayq.internal.ops.ScriptKey.PRIORITY_DUE;

import dev.delayq.DedupeMode;
import dev.delayq.Durability;
import dev.delayq.EnqueueResult;
import dev.delayq.Job;
import dev.delayq.JobState;
import dev.delayq.OnParentDead;
import dev.delayq.internal.Keys;
import dev.delayq.internal.base.ScriptLimits;
import dev.delayq.internal.base.Validation;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** {@code enqueue.lua}: one batch of jobs, atomic; answers with the duplicates only. */
public final class Enqueue {
    private static final byte[] GENERATED = {'g'};

    private static final ScriptKey[] KEYS = {JOBS, DUE, META, DEDUPE, DEDUPE_HOLDS, HISTORY, PRIORITY_DUE, EVENTS,
        ScriptKey.DEAD, ScriptKey.DEPS, ScriptKey.WAITING, ScriptKey.CHILDREN,
        ScriptKey.RESULTS};

    /** ARGV, in order, before the jobs. */
    enum Arg { WAKE_CHANNEL, N }

    /** The arguments of each job. */
    enum Each { ID, PAYLOAD, WHEN, OPTIONS }

    /** The reply: nothing but the duplicates (and replaced jobs). */
    enum Out { }

    /** The fields of each duplicate or replaced job (hold until -2: job i replaced the owner). */
    enum Duplicate { I, OWNER_ID, HOLD_UNTIL, OWNER_STATE }

    static final Protocol PROTOCOL = Protocol.of(Script.ENQUEUE, KEYS, Arg.values(), Each.values(), Out.values(),
            Duplicate.values()).bound(Arg.N, 1, ScriptLimits.MAX_BATCH);
    private static final int ARGS = PROTOCOL.argCount();
    private static final int WIDTH = Each.values().length;
    private static final int DUPLICATE = Duplicate.values().length;
    private static final long REPLACED = -2;

    private Enqueue() {
    }

    /**
     * Enqueues {@code batch} in one script call under the ids {@code ids} (each job's own, or on a partitioned queue
     * one adjusted to its partition), waiting for {@code durability} when it asks to.
     */
    public static CompletableFuture<List<EnqueueResult>> call(RedisBackend redis, Keys keys, Durability durability,
                                                              List<Job> batch, String[] ids) {
        return call(redis, keys, durability, batch, ids, null);
    }

    /**
     * As {@link #call(RedisBackend, Keys, Durability, List, String[])}, with each job's remote tag ({@code remote[i]}:
     * the link id and its parents' statuses from {@code remote_link.lua}, lua/includes/remote.lua; {@code null} for a
     * job without parents in other key sets, or {@code remote} itself null for none).
     */
    public static CompletableFuture<List<EnqueueResult>> call(RedisBackend redis, Keys keys, Durability durability,
                                                              List<Job> batch, String[] ids, String[] remote) {
        byte[][] k = ScriptKey.of(KEYS, keys);
        byte[][] args = new byte[ARGS + WIDTH * batch.size()][];
        args[Arg.WAKE_CHANNEL.ordinal()] = keys.wakeChannel();
        args[Arg.N.ordinal()] = num(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            Job job = batch.get(i);
            int a = ARGS + WIDTH * i;
            args[a + Each.ID.ordinal()] = utf8(ids[i]);
            args[a + Each.PAYLOAD.ordinal()] = job.payloadUnsafe();
            args[a + Each.WHEN.ordinal()] = ascii(job.runAt() != null ? "a" + job.runAt().toEpochMilli() : "d" + job.delay().toMillis());
            args[a + Each.OPTIONS.ordinal()] = options(job, remote == null ? null : remote[i]);
        }
        CompletableFuture<List<Object>> call = durability.waits()
                ? redis.evalDurable(Script.ENQUEUE, durability.localAof(), durability.replicas(), durability.timeout(), k, args)
                .thenApply(r -> ReplyCode.checked(r, Script.ENQUEUE.fileName()))
                : Reply.eval(redis, Script.ENQUEUE, k, args);
        return call.thenApply(reply -> decode(reply, batch, ids));
    }

    /**
     * "" for a job with none of the optional fields, "g" for such a job with a generated id, else the fields: seven,
     * or nine with the job's trace context (traceparent, tracestate), which a job without one never pays for; a job in
     * dedupe mode debounce sends the nine (the trace ones empty without one) and the tagged field {@code mode=debounce}.
     */
    private static byte[] options(Job job, String remote) {
        if (job.maxAttempts() == 0 && job.name() == null && job.dedupeKey() == null && job.timeout() == null
                && job.priority() == 0 && job.traceparent() == null && job.after().isEmpty() && job.group() == null
                && remote == null) {
            return job.idGenerated() ? GENERATED : Args.EMPTY;
        }
        String sep = "\0";
        return utf8((job.idGenerated() ? "1" : "0") + sep
                + (job.maxAttempts() > 0 ? Integer.toString(job.maxAttempts()) : "") + sep
                + (job.name() != null ? job.name() : "") + sep
                + (job.dedupeKey() != null ? job.dedupeKey() : "") + sep
                + (job.dedupeTtl() != null ? Long.toString(job.dedupeTtl().toMillis()) : "") + sep
                + (job.priority() > 0 ? Integer.toString(job.priority()) : "") + sep
                + (job.timeout() != null ? Long.toString(job.timeout().toMillis()) : "")
                + (job.traceparent() != null || !tags(job, remote).isEmpty()
                    ? sep + (job.traceparent() != null ? job.traceparent() : "") + sep + (job.tracestate() != null ? job.tracestate() : "")
                    : "")
                + tags(job, remote));
    }

    /**
     * The tagged option fields (after the nine positional ones): a flow's parents and policy
     * (lua/includes/deps.lua), the dedupe mode debounce (lua/includes/debounce.lua), the group (lua/includes/groups.lua).
     */
    private static String tags(Job job, String remote) {
        String mode = job.dedupeMode() == DedupeMode.DEBOUNCE ? "\0mode=debounce" : "";
        String group = job.group() != null ? "\0group=" + job.group() : "";
        if (job.after().isEmpty() && remote == null) {
            return mode + group;
        }
        return (job.after().isEmpty() ? "" : "\0after=" + String.join("\1", job.after()))
                + (remote == null ? "" : "\0remote=" + remote)
                + (job.onParentDead() == OnParentDead.IGNORE ? "\0opd=ignore" : "") + mode + group;
    }

    private static List<EnqueueResult> decode(List<Object> reply, List<Job> batch, String[] ids) {
        if (reply.size() == 2 && Reply.code(reply) == ReplyCode.DUE_OUT_OF_RANGE) {
            Job bad = batch.get(Reply.asInt(reply.get(1)) - 1);
            throw new IllegalArgumentException("due time of job '" + bad.id() + "' ("
                    + (bad.runAt() != null ? "at " + bad.runAt() : "delay " + Validation.human(bad.delay()))
                    + ") falls beyond year 9999 on the Redis clock");
        }
        if (reply.size() == 3 && Reply.code(reply) == ReplyCode.UNKNOWN_PARENT) {
            throw new IllegalArgumentException("unknown parent " + Reply.str(reply.get(2)));
        }
        EnqueueResult[] out = new EnqueueResult[batch.size()];
        for (int d = 0; DUPLICATE * (d + 1) <= reply.size(); d++) {
            int index = Reply.asInt(Reply.item(reply, 0, DUPLICATE, d, Duplicate.I)) - 1;
            int state = Reply.asInt(Reply.item(reply, 0, DUPLICATE, d, Duplicate.OWNER_STATE));
            long hold = Reply.asLong(Reply.item(reply, 0, DUPLICATE, d, Duplicate.HOLD_UNTIL));
            out[index] = new EnqueueResult(Reply.str(Reply.item(reply, 0, DUPLICATE, d, Duplicate.OWNER_ID)), false,
                    state == 0 ? null : JobState.ofCode(state), hold == REPLACED ? -1 : hold, hold == REPLACED);
        }
        for (int i = 0; i < out.length; i++) {
            if (out[i] == null) {
                out[i] = new EnqueueResult(ids[i], true);
            }
        }
        return Arrays.asList(out);
    }
}
