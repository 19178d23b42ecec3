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
    /** The phases: every record against the indexes, every index against the records, every dedupe key. */
    public static final List<String> PHASES = List.of("jobs", "due", "prio", "leases", "done", "batches", "dead",
            "dedupe");

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
        byte[][] k = {keys.jobs(), keys.due(), keys.leases(), keys.done(), keys.dead(), keys.dedupe(), keys.dedupeHolds(),
                keys.prio(), keys.doneBatches()};
        return Reply.eval(redis, Script.CHECK, k, ascii(phase), ascii(cursor), num(PAGE), num(MAX_BYTES)).thenApply(r -> {
            List<String> problems = new ArrayList<>(r.size() - 2);
            for (int i = 2; i < r.size(); i++) {
                problems.add(Reply.str(r.get(i)));
            }
            return new Page(Reply.str(r.get(0)), Reply.asLong(r.get(1)), problems);
        });
    }
}
