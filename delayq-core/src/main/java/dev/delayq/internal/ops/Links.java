package dev.delayq.internal.ops;

import dev.delayq.FlowLinks;
import dev.delayq.OnParentDead;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** {@code links.lua}: a job's flow links (its parent counts while it waits, its waiting children), read atomically. */
public final class Links {
    private static final ScriptKey[] KEYS = {ScriptKey.JOBS, ScriptKey.DEPS, ScriptKey.CHILDREN};

    /** ARGV. */
    enum Arg { ID }

    /** The reply. */
    enum Out { EXISTS, PENDING, DONE, DEAD, POLICY, CHILDREN }

    static final Protocol PROTOCOL = Protocol.of(Script.LINKS, KEYS, Arg.values(), Out.values());

    private Links() {
    }

    public static CompletableFuture<Optional<FlowLinks>> call(RedisBackend redis, Keys keys, String id) {
        return Reply.eval(redis, Script.LINKS, ScriptKey.of(KEYS, keys), Args.utf8(id)).thenApply(r -> {
            if (Reply.longAt(r, Out.EXISTS) == 0) {
                return Optional.empty();
            }
            return Optional.of(new FlowLinks((int) Reply.longAt(r, Out.PENDING), (int) Reply.longAt(r, Out.DONE),
                    (int) Reply.longAt(r, Out.DEAD), Reply.longAt(r, Out.POLICY) == 1 ? OnParentDead.IGNORE : OnParentDead.DEAD,
                    Reply.longAt(r, Out.CHILDREN)));
        });
    }
}
