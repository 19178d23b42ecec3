package dev.delayq.internal.ops;

import static dev.delayq.internal.ops.ScriptKey.DUE;
import static dev.delayq.internal.ops.ScriptKey.EVENTS;
import static dev.delayq.internal.ops.ScriptKey.JOBS;
import static dev.delayq.internal.ops.ScriptKey.LEASES;
import static dev.delayq.internal.ops.ScriptKey.META;
import static dev.delayq.internal.ops.ScriptKey.PRIORITY_DUE;
import static dev.delayq.internal.ops.ScriptKey.PROGRESS;

import dev.delayq.Ack;
import dev.delayq.Lease;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** {@code release.lua}: hand leased jobs back unfinished (due again at once, attempt not counted). */
public final class Release {
    private static final ScriptKey[] KEYS = {LEASES, JOBS, DUE, META, PRIORITY_DUE, EVENTS, PROGRESS};

    /** ARGV, in order, before the leases ({@link LeaseBatches.Each}). */
    enum Arg { WAKE_CHANNEL }

    /** The reply: one code per lease. */
    enum Out { }

    static final Protocol PROTOCOL = Protocol.of(Script.RELEASE, KEYS, Arg.values(), LeaseBatches.Each.values(), Out.values(),
            LeaseBatches.Code.values());

    private Release() {
    }

    public static CompletableFuture<List<Ack>> call(RedisBackend redis, Keys keys, List<Lease> leases) {
        byte[][] k = ScriptKey.of(KEYS, keys);
        byte[][] head = new byte[PROTOCOL.argCount()][];
        head[Arg.WAKE_CHANNEL.ordinal()] = keys.wakeChannel();
        return LeaseBatches.chunked(leases, chunk -> Reply.eval(redis, Script.RELEASE, k, LeaseBatches.args(chunk, head))
                .thenApply(LeaseBatches::acks));
    }
}
