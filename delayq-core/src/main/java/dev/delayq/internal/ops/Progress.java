package dev.delayq.internal.ops;

import dev.delayq.Ack;
import dev.delayq.Lease;
import dev.delayq.internal.Keys;
import dev.delayq.internal.base.ScriptLimits;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.concurrent.CompletableFuture;

/** {@code progress.lua}: a running job's progress, fenced by its lease's token. */
public final class Progress {
    /** Longest progress text, in UTF-8 bytes. */
    public static final int MAX_BYTES = ScriptLimits.MAX_PROGRESS_BYTES;

    private static final ScriptKey[] KEYS = {ScriptKey.JOBS, ScriptKey.PROGRESS, ScriptKey.META, ScriptKey.EVENTS};

    /** ARGV, in order. */
    enum Arg { ID, TOKEN, PROGRESS }

    /** The reply. */
    enum Out { CODE }

    static final Protocol PROTOCOL = Protocol.of(Script.PROGRESS, KEYS, Arg.values(), Out.values())
            .bound(Arg.TOKEN, 0, 1L << 53);

    private Progress() {
    }

    public static CompletableFuture<Ack> call(RedisBackend redis, Keys keys, Lease lease, String progress) {
        byte[][] a = new byte[PROTOCOL.argCount()][];
        a[Arg.ID.ordinal()] = Args.utf8(lease.id());
        a[Arg.TOKEN.ordinal()] = Args.num(lease.token());
        a[Arg.PROGRESS.ordinal()] = Args.utf8(progress);
        return Reply.eval(redis, Script.PROGRESS, ScriptKey.of(KEYS, keys), a)
                .thenApply(r -> Reply.code(r).ack());
    }
}
