package dev.delayq.internal.ops;

import dev.delayq.Durability;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * {@code remote_link.lua}: step 1 of linking a child to parents in another key set (lua/includes/remote.lua), run on
 * the parents' key set; and its undoing when another queue refuses the same enqueue.
 */
public final class RemoteLink {
    private static final ScriptKey[] KEYS = {ScriptKey.JOBS, ScriptKey.CHILDREN, ScriptKey.CONFIG};

    /** ARGV, in order, before the parents. */
    enum Arg { MODE, CHILD_KEY_SET, CHILD_ID, LINK_ID }

    /** The arguments of each parent. */
    enum Each { ID, REF }

    /** The reply: 1, then one status per parent. */
    enum Out { OK }

    /** Each parent's status: "l" linked, "d" done, "x" dead. */
    enum Status { STATUS }

    static final Protocol PROTOCOL = Protocol.of(Script.REMOTE_LINK, KEYS, Arg.values(), Each.values(), Out.values(),
            Status.values());

    private RemoteLink() {
    }

    /**
     * Links the child {@code childId} of the key set {@code childSet} to the parents {@code ids} of {@code keys} (each
     * named {@code refs[i]} by the child), or with {@code link} false takes those links back.
     *
     * @return each parent's status: 'l' linked, 'd' done, 'x' dead (empty when unlinking)
     * @throws IllegalArgumentException (in the future) naming the first parent that does not exist, or a partitioned queue
     */
    public static CompletableFuture<char[]> call(RedisBackend redis, Keys keys, Durability durability, boolean link,
                                                 String childSet, String childId, String linkId, List<String> ids,
                                                 List<String> refs) {
        byte[][] args = new byte[Arg.values().length + 2 * ids.size()][];
        args[Arg.MODE.ordinal()] = Args.ascii(link ? "link" : "unlink");
        args[Arg.CHILD_KEY_SET.ordinal()] = Args.utf8(childSet);
        args[Arg.CHILD_ID.ordinal()] = Args.utf8(childId);
        args[Arg.LINK_ID.ordinal()] = Args.ascii(linkId);
        for (int i = 0; i < ids.size(); i++) {
            args[Arg.values().length + 2 * i] = Args.utf8(ids.get(i));
            args[Arg.values().length + 2 * i + 1] = Args.utf8(refs.get(i));
        }
        // Durable as the enqueue is: a link lost in a failover after the child was written would leave it waiting.
        CompletableFuture<List<Object>> call = durability.waits() && link
                ? redis.evalDurable(Script.REMOTE_LINK, durability.localAof(), durability.replicas(), durability.timeout(),
                ScriptKey.of(KEYS, keys), args)
                : redis.eval(Script.REMOTE_LINK, ScriptKey.of(KEYS, keys), args);
        return call.thenApply(r -> {
            if (r.size() == 2 && Reply.code(r) == ReplyCode.BAD_ARGUMENT) {
                throw new IllegalArgumentException("parents in queue '" + keys.queue() + "': " + Reply.str(r.get(1)));
            }
            if (r.size() == 3 && Reply.code(r) == ReplyCode.UNKNOWN_PARENT) {
                String ref = refs.get(ids.indexOf(Reply.str(r.get(2))));
                throw new IllegalArgumentException("unknown parent " + Reply.str(r.get(2)) + " (in queue "
                        + ref.substring(0, ref.indexOf('/')) + ")");
            }
            char[] out = new char[r.size() - 1];
            for (int i = 0; i < out.length; i++) {
                out[i] = Reply.str(r.get(i + 1)).charAt(0);
            }
            return out;
        });
    }
}
