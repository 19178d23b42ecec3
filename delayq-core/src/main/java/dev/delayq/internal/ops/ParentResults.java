package dev.delayq.internal.ops;

import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * {@code parent_results.lua}: the results of a job's parents that are still kept (see {@code lua/includes/results.lua}),
 * read by its handler's {@code JobContext.parentResults()}.
 */
public final class ParentResults {
    private static final ScriptKey[] KEYS = {ScriptKey.RESULTS};

    /** ARGV. */
    enum Arg { ID }

    /** The reply: pairs, one per parent with a result. */
    enum Out { }

    /** Each pair of the reply. */
    enum Each { PARENT, RESULT }

    static final Protocol PROTOCOL = Protocol.of(Script.PARENT_RESULTS, KEYS, Arg.values(), null, Out.values(), Each.values());

    private ParentResults() {
    }

    /**
     * Parent id to its result, in the order the job named its parents; empty for a job without parents. A parent in
     * another key set comes as byte 2 and its ref ({@code queue/id}) with a null result: read there by the caller.
     */
    public static CompletableFuture<Map<String, byte[]>> call(RedisBackend redis, Keys keys, String id) {
        return Reply.eval(redis, Script.PARENT_RESULTS, ScriptKey.of(KEYS, keys), Args.utf8(id)).thenApply(ParentResults::decode);
    }

    private static Map<String, byte[]> decode(List<Object> r) {
        if (r.isEmpty()) {
            return Map.of();
        }
        Map<String, byte[]> out = new LinkedHashMap<>();
        for (int i = 0; i + 1 < r.size(); i += 2) {
            out.put(Reply.str(r.get(i)), (byte[]) r.get(i + 1));
        }
        return Collections.unmodifiableMap(out);
    }
}
