package dev.delayq.internal.ops;

import dev.delayq.JobInfo;
import dev.delayq.JobState;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** {@code get.lua}: one job with its full state, read atomically. */
public final class Get {
    private Get() {
    }

    public static CompletableFuture<Optional<JobInfo>> call(RedisBackend redis, Keys keys, String id) {
        byte[][] k = {keys.jobs(), keys.due(), keys.leases(), keys.done(), keys.dead(), keys.dedupeHolds(), keys.prio(),
                keys.progress()};
        return Reply.eval(redis, Script.GET, k, Args.utf8(id)).thenApply(r -> {
            if (r.isEmpty()) {
                return Optional.empty();
            }
            int state = Reply.asInt(r.get(2));
            // A record that cannot be decoded and is in no index of processing, done or dead is in the due set.
            JobState index = state == 0 ? JobState.SCHEDULED : JobState.ofCode(state);
            return Optional.of(JobInfos.of(id, (byte[]) r.get(0), Reply.asLong(r.get(1)), index, Reply.asLong(r.get(3)),
                    r.size() > 4 ? Reply.str(r.get(4)) : null));
        });
    }
}
