package dev.delayq.internal.ops;

import static dev.delayq.internal.ops.Args.ascii;
import static dev.delayq.internal.ops.Args.num;

import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** {@code check.lua}: one page of the consistency check (each job judged in one atomic read). */
public final class CheckStep {
    /** Entries scanned per call. */
    public static final int PAGE = 500;
    /** Record bytes one call reads at most. */
    static final long MAX_BYTES = 16L * 1024 * 1024;
    /** The phases: every record against the indexes, every index against the records, every dedupe key, the groups' turns. */
    public static final List<String> PHASES = List.of("jobs", "due", "prio", "leases", "done", "batches", "dead",
            "dedupe", "retrying", "waiting", "ring", "groups");

    private static final ScriptKey[] KEYS = {ScriptKey.JOBS, ScriptKey.DUE, ScriptKey.LEASES, ScriptKey.DONE, ScriptKey.DEAD,
        ScriptKey.DEDUPE, ScriptKey.DEDUPE_HOLDS, ScriptKey.PRIORITY_DUE, ScriptKey.DONE_BATCHES,
        ScriptKey.RETRYING, ScriptKey.DEPS, ScriptKey.WAITING, ScriptKey.CHILDREN, ScriptKey.META};

    /**
     * ARGV, in order. The phase is what one page scans ({@link #PHASES}), data of the one operation "check a page", not
     * a verb: every phase answers alike.
     */
    enum Arg { PHASE, SCAN_CURSOR, ENTRIES_TO_SCAN, MOST_RECORD_BYTES }

    /** The reply's fields before the problems. */
    enum Out { NEXT_CURSOR, SCANNED }

    /** Each problem after them. */
    enum Problem { PROBLEM }

    static final Protocol PROTOCOL = Protocol.of(Script.CHECK, KEYS, Arg.values(), null, Out.values(), Problem.values())
            .bound(Arg.ENTRIES_TO_SCAN, 1, 100_000).bound(Arg.MOST_RECORD_BYTES, 1, Protocol.MS);

    private CheckStep() {
    }

    /**
     * One page of a phase.
     *
     * @param cursor   the scan cursor to continue from ("0": the phase is over)
     * @param scanned  entries looked at
     * @param problems what is wrong, one line per problem
     */
    public record Page(String cursor, long scanned, List<String> problems) {
    }

    public static CompletableFuture<Page> call(RedisBackend redis, Keys keys, String phase, String cursor) {
        byte[][] a = new byte[PROTOCOL.argCount()][];
        a[Arg.PHASE.ordinal()] = ascii(phase);
        a[Arg.SCAN_CURSOR.ordinal()] = ascii(cursor);
        a[Arg.ENTRIES_TO_SCAN.ordinal()] = num(PAGE);
        a[Arg.MOST_RECORD_BYTES.ordinal()] = num(MAX_BYTES);
        return Reply.eval(redis, Script.CHECK, ScriptKey.of(KEYS, keys), a).thenApply(r -> {
            int head = Out.values().length;
            List<String> problems = new ArrayList<>(r.size() - head);
            for (int i = 0; head + i < r.size(); i++) {
                problems.add(Reply.str(Reply.item(r, head, 1, i, Problem.PROBLEM)));
            }
            return new Page(Reply.str(Reply.at(r, Out.NEXT_CURSOR)), Reply.longAt(r, Out.SCANNED), problems);
        });
    }
}
