package dev.delayq.internal.ops;

import dev.delayq.Ack;
import dev.delayq.Lease;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/** {@code complete.lua}: acknowledge finished jobs, each fenced by its lease's token. */
public final class Complete {
    private Complete() {
    }

    /** Completes the jobs of {@code leases}; done jobs are kept for {@code retention} (zero: deleted at once). */
    public static CompletableFuture<List<Ack>> call(RedisBackend redis, Keys keys, Duration retention, List<Lease> leases) {
        byte[][] k = {keys.leases(), keys.jobs(), keys.doneBatches(), keys.meta(), keys.dedupe(), keys.dedupeHolds(), keys.history(),
                keys.dead(), keys.events(), keys.progress()};
        byte[] ms = Args.num(retention.toMillis());
        Set<Lease> distinct = new LinkedHashSet<>(leases);
        List<Lease> once = distinct.size() == leases.size() ? leases : new ArrayList<>(distinct);
        CompletableFuture<List<Ack>> acks = LeaseBatches.chunked(once, chunk -> Reply.eval(redis, Script.COMPLETE, k,
                LeaseBatches.args(chunk, ms, keys.wakeChannel())).thenApply(LeaseBatches::acks));
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
}
