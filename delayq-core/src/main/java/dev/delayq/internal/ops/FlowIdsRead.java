package dev.delayq.internal.ops;

import dev.delayq.FlowIds;
import dev.delayq.JobState;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** {@code flow_ids.lua}: the ids behind a job's flow links (its parents while it waits, its first waiting children). */
public final class FlowIdsRead {
    private static final ScriptKey[] KEYS = {ScriptKey.JOBS, ScriptKey.DEPS, ScriptKey.CHILDREN};

    /** ARGV. */
    enum Arg { ID, MOST_CHILDREN }

    /** The reply's fixed fields. */
    enum Out { EXISTS, PARENTS, CHILDREN }

    /** Each linked job's fields. */
    enum Each { ID, STATE }

    /** The most children one call lists. */
    public static final int MAX_CHILDREN = 1000;

    static final Protocol PROTOCOL = Protocol.of(Script.FLOW_IDS, KEYS, Arg.values(), null, Out.values(), Each.values())
            .bound(Arg.MOST_CHILDREN, 0, MAX_CHILDREN);
    private static final int HEAD = Out.values().length;
    private static final int WIDTH = Each.values().length;

    private FlowIdsRead() {
    }

    public static CompletableFuture<Optional<FlowIds>> call(RedisBackend redis, Keys keys, String id, int mostChildren) {
        byte[][] a = new byte[Arg.values().length][];
        a[Arg.ID.ordinal()] = Args.utf8(id);
        a[Arg.MOST_CHILDREN.ordinal()] = Args.num(mostChildren);
        return Reply.eval(redis, Script.FLOW_IDS, ScriptKey.of(KEYS, keys), a).thenApply(FlowIdsRead::decode);
    }

    private static Optional<FlowIds> decode(List<Object> r) {
        if (Reply.longAt(r, Out.EXISTS) == 0) {
            return Optional.empty();
        }
        int parents = (int) Reply.longAt(r, Out.PARENTS);
        List<FlowIds.Linked> ps = new ArrayList<>(parents);
        List<FlowIds.Linked> cs = new ArrayList<>();
        for (int i = 0; HEAD + (i + 1) * WIDTH <= r.size(); i++) {
            FlowIds.Linked l = new FlowIds.Linked(Reply.str(Reply.item(r, HEAD, WIDTH, i, Each.ID)),
                    state(Reply.asLong(Reply.item(r, HEAD, WIDTH, i, Each.STATE))));
            (i < parents ? ps : cs).add(l);
        }
        return Optional.of(new FlowIds(ps, cs, Reply.longAt(r, Out.CHILDREN)));
    }

    /** The state of a record's code; null for no record (or one no state of which is known). */
    private static JobState state(long code) {
        for (JobState s : JobState.values()) {
            if (s.code() == code) {
                return s;
            }
        }
        return null;
    }
}
