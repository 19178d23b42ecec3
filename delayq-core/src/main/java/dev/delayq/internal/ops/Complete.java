package dev.delayq.internal.ops;

import static dev.delayq.internal.ops.ScriptKey.DEAD;
import static dev.delayq.internal.ops.ScriptKey.DEDUPE;
import static dev.delayq.internal.ops.ScriptKey.DEDUPE_HOLDS;
import static dev.delayq.internal.ops.ScriptKey.DONE_BATCHES;
import static dev.delayq.internal.ops.ScriptKey.EVENTS;
import static dev.delayq.internal.ops.ScriptKey.HISTORY;
import static dev.delayq.internal.ops.ScriptKey.JOBS;
import static dev.delayq.internal.ops.ScriptKey.LEASES;
import static dev.delayq.internal.ops.ScriptKey.META;
import static dev.delayq.internal.ops.ScriptKey.PROGRESS;

import dev.delayq.Ack;
import dev.delayq.Lease;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/** {@code complete.lua}: acknowledge finished jobs, each fenced by its lease's token. */
public final class Complete {
    private static final ScriptKey[] KEYS = {LEASES, JOBS, DONE_BATCHES, META, DEDUPE, DEDUPE_HOLDS, HISTORY, DEAD, EVENTS,
        PROGRESS, ScriptKey.ERRORS, ScriptKey.DUE, ScriptKey.PRIORITY_DUE, ScriptKey.DEPS, ScriptKey.WAITING, ScriptKey.CHILDREN,
        ScriptKey.RESULTS};

    /** ARGV, in order, before the leases ({@link LeaseBatches.Each}). */
    enum Arg { DONE_RETENTION_MS, WAKE_CHANNEL }

    /** The reply: one code per lease. */
    enum Out { }

    static final Protocol PROTOCOL = Protocol.of(Script.COMPLETE, KEYS, Arg.values(), LeaseBatches.Each.values(),
            Out.values(), LeaseBatches.Code.values()).bound(Arg.DONE_RETENTION_MS, 0, 1L << 50);

    private Complete() {
    }

    /** Completes the jobs of {@code leases}; done jobs are kept for {@code retention} (zero: deleted at once). */
    public static CompletableFuture<List<Ack>> call(RedisBackend redis, Keys keys, Duration retention, List<Lease> leases) {
        return call(redis, keys, retention, leases, null);
    }

    /**
     * As {@link #call(RedisBackend, Keys, Duration, List)}, where {@code results} (or {@code null}: none) maps a lease to
     * the result its handler left, written with the done job when done jobs are kept (see lua/includes/results.lua).
     */
    public static CompletableFuture<List<Ack>> call(RedisBackend redis, Keys keys, Duration retention, List<Lease> leases,
                                                    Map<Lease, byte[]> results) {
        byte[][] k = ScriptKey.of(KEYS, keys);
        byte[][] head = new byte[PROTOCOL.argCount()][];
        head[Arg.DONE_RETENTION_MS.ordinal()] = Args.num(retention.toMillis());
        head[Arg.WAKE_CHANNEL.ordinal()] = keys.wakeChannel();
        Set<Lease> distinct = new LinkedHashSet<>(leases);
        List<Lease> once = distinct.size() == leases.size() ? leases : new ArrayList<>(distinct);
        CompletableFuture<List<Ack>> acks = LeaseBatches.chunked(once, chunk -> Reply.eval(redis, Script.COMPLETE, k,
                results == null ? LeaseBatches.args(chunk, head) : args(chunk, head, results)).thenApply(LeaseBatches::acks));
        if (once == leases) {
            return acks;
        }
        // A lease named twice is sent once: complete.lua reads each record once, so it would finish the job twice
        // (two entries in its done batch, two completions counted). The answers come in the order of first mentions;
        // a later mention gets a replayed call's.
        return acks.thenApply(got -> {
            Map<Lease, Ack> answered = new HashMap<>();
            List<Ack> out = new ArrayList<>(leases.size());
            for (Lease l : leases) {
                Ack a = answered.get(l);
                if (a == null) {
                    a = got.get(answered.size());
                    answered.put(l, a);
                    out.add(a);
                } else {
                    out.add(a == Ack.OK ? Ack.ALREADY_APPLIED : a);
                }
            }
            return out;
        });
    }

    /**
     * {@code head..., id, token, ...} where a lease with a result sends its token followed by 'r', then the result: a job
     * without one costs no byte more than in {@link LeaseBatches#args}.
     */
    private static byte[][] args(List<Lease> leases, byte[][] head, Map<Lease, byte[]> results) {
        List<byte[]> a = new ArrayList<>(head.length + 2 * leases.size() + results.size());
        a.addAll(Arrays.asList(head));
        for (Lease l : leases) {
            byte[] result = results.get(l);
            a.add(Args.utf8(l.id()));
            if (result == null) {
                a.add(Args.num(l.token()));
            } else {
                a.add(Args.utf8(l.token() + "r"));
                a.add(result);
            }
        }
        return a.toArray(new byte[0][]);
    }
}
