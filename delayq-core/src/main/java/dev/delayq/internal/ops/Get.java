package dev.delayq.internal.ops;

import static dev.delayq.internal.ops.ScriptKey.DEAD;
import static dev.delayq.internal.ops.ScriptKey.DEDUPE_HOLDS;
import static dev.delayq.internal.ops.ScriptKey.DONE;
import static dev.delayq.internal.ops.ScriptKey.DUE;
import static dev.delayq.internal.ops.ScriptKey.JOBS;
import static dev.delayq.internal.ops.ScriptKey.LEASES;
import static dev.delayq.internal.ops.ScriptKey.PRIORITY_DUE;
import static dev.delayq.internal.ops.ScriptKey.PROGRESS;

import dev.delayq.JobInfo;
import dev.delayq.JobState;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * {@code get.lua} and {@code get_by_dedupe.lua} (their common part in {@code includes/get.lua}): one job, found by its
 * id or by the dedupe key it holds, with its full state, read atomically.
 */
public final class Get {
    private static final ScriptKey[] KEYS = {JOBS, DUE, LEASES, DONE, DEAD, DEDUPE_HOLDS, PRIORITY_DUE, PROGRESS,
        ScriptKey.RESULTS};

    /** ARGV. */
    enum Arg { ID, MOST_PAYLOAD_BYTES }

    /** The reply ({} when there is no such job). */
    enum Out { RECORD, TIME, STATE, HOLD, PROGRESS, PAYLOAD_BYTES, RESULT }

    private static final ScriptKey[] BY_DEDUPE_KEYS = {JOBS, DUE, LEASES, DONE, DEAD, DEDUPE_HOLDS, PRIORITY_DUE, PROGRESS,
        ScriptKey.DEDUPE, ScriptKey.RESULTS};

    /** get_by_dedupe.lua's ARGV. */
    enum ByDedupe { DEDUPE_KEY, MOST_PAYLOAD_BYTES }

    /** get_by_dedupe.lua's reply: get.lua's and the job's id. */
    enum ByDedupeOut { RECORD, TIME, STATE, HOLD, PROGRESS, PAYLOAD_BYTES, RESULT, ID }

    static final Protocol PROTOCOL = Protocol.of(Script.GET, KEYS, Arg.values(), Out.values());
    static final Protocol BY_DEDUPE = Protocol.of(Script.GET_BY_DEDUPE, BY_DEDUPE_KEYS, ByDedupe.values(),
            ByDedupeOut.values());

    private Get() {
    }

    public static CompletableFuture<Optional<JobInfo>> call(RedisBackend redis, Keys keys, String id) {
        return call(redis, keys, id, ListPage.WHOLE);
    }

    /** The job, its payload cut by the script to its first {@code preview} bytes ({@link ListPage#WHOLE}: whole). */
    public static CompletableFuture<Optional<JobInfo>> call(RedisBackend redis, Keys keys, String id, int preview) {
        byte[][] a = new byte[Arg.values().length][];
        a[Arg.ID.ordinal()] = Args.utf8(id);
        a[Arg.MOST_PAYLOAD_BYTES.ordinal()] = Args.num(preview);
        return Reply.eval(redis, Script.GET, ScriptKey.of(KEYS, keys), a).thenApply(r -> decode(r, id));
    }

    /** The job that holds (or held, while the key holds after it ended) dedupe key {@code key}, its payload whole. */
    public static CompletableFuture<Optional<JobInfo>> byDedupe(RedisBackend redis, Keys keys, String key) {
        byte[][] a = new byte[ByDedupe.values().length][];
        a[ByDedupe.DEDUPE_KEY.ordinal()] = Args.utf8(key);
        a[ByDedupe.MOST_PAYLOAD_BYTES.ordinal()] = Args.num(ListPage.WHOLE);
        return Reply.eval(redis, Script.GET_BY_DEDUPE, ScriptKey.of(BY_DEDUPE_KEYS, keys), a)
                .thenApply(r -> r.isEmpty() ? Optional.empty() : decode(r, Reply.str(Reply.at(r, ByDedupeOut.ID))));
    }

    private static Optional<JobInfo> decode(List<Object> r, String id) {
        if (r.isEmpty()) {
            return Optional.empty();
        }
        int state = (int) Reply.longAt(r, Out.STATE);
        // A record that cannot be decoded and is in no index of processing, done or dead is in the due set.
        JobState index = state == 0 ? JobState.SCHEDULED : JobState.ofCode(state);
        return Optional.of(JobInfos.of(id, (byte[]) Reply.at(r, Out.RECORD), Reply.longAt(r, Out.TIME), index,
                Reply.longAt(r, Out.HOLD), r.size() > Out.PROGRESS.ordinal() ? Reply.str(Reply.at(r, Out.PROGRESS)) : null,
                r.size() > Out.PAYLOAD_BYTES.ordinal() ? Reply.longAt(r, Out.PAYLOAD_BYTES) : -1,
                r.size() > Out.RESULT.ordinal() ? (byte[]) Reply.at(r, Out.RESULT) : null));
    }
}
