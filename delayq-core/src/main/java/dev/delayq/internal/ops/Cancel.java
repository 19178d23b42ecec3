package dev.delayq.internal.ops;

import dev.delayq.ChangeResult;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.concurrent.CompletableFuture;

/** {@code cancel.lua}: delete a scheduled job before it runs. */
public final class Cancel {
    private Cancel() {
    }

    public static CompletableFuture<ChangeResult> call(RedisBackend redis, Keys keys, String id) {
        return redis.eval(Script.CANCEL, new byte[][] {keys.due(), keys.jobs(), keys.meta()}, Args.utf8(id))
                .thenApply(ReplyCode::change);
    }
}
