package dev.delayq.internal.ops;

import dev.delayq.Ack;
import dev.delayq.Lease;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.concurrent.CompletableFuture;

/** {@code progress.lua}: a running job's progress, fenced by its lease's token. */
public final class Progress {
    /** Longest progress text, in UTF-8 bytes. */
    public static final int MAX_BYTES = 4096;

    private Progress() {
    }

    public static CompletableFuture<Ack> call(RedisBackend redis, Keys keys, Lease lease, String progress) {
        return Reply.eval(redis, Script.PROGRESS, new byte[][] {keys.jobs(), keys.progress(), keys.meta(), keys.events()},
                Args.utf8(lease.id()), Args.num(lease.token()), Args.utf8(progress))
                .thenApply(r -> Reply.code(r).ack());
    }
}
