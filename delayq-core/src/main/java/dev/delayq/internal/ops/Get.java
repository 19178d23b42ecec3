package dev.delayq.internal.ops;

import dev.delayq.JobInfo;
import dev.delayq.internal.Keys;
import dev.delayq.internal.Record;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** {@code get.lua}: one job with its full state, read atomically. */
public final class Get {
    private Get() {
    }

    public static CompletableFuture<Optional<JobInfo>> call(RedisBackend redis, Keys keys, String id) {
        byte[][] k = {keys.jobs(), keys.due(), keys.leases(), keys.done(), keys.dead()};
        return redis.eval(Script.GET, k, Args.utf8(id)).thenApply(r -> r.isEmpty() ? Optional.empty()
                : Optional.of(JobInfos.of(id, Record.decode((byte[]) r.get(0)), Reply.asLong(r.get(1)))));
    }
}
