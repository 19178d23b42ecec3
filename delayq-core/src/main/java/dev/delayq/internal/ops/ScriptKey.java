package dev.delayq.internal.ops;

import dev.delayq.internal.Keys;
import java.util.function.Function;

/**
 * The keys a script may take, each with the words its header names it by ({@code -- KEYS[n] due zset}) and the
 * {@link Keys} method that names it. A script's KEYS are a list of these in its {@link Protocol}, built by
 * {@link #of} in one pass.
 */
enum ScriptKey {
    JOBS("jobs hash", Keys::jobs),
    DUE("due zset", Keys::due),
    PRIORITY_DUE("priority due zset", Keys::prio),
    RETRYING("retrying zset", Keys::retrying),
    ERRORS("errors hash", Keys::errors),
    LEASES("leases zset", Keys::leases),
    DONE("done zset", Keys::done),
    DONE_BATCHES("done batches zset", Keys::doneBatches),
    DEAD("dead zset", Keys::dead),
    META("meta hash", Keys::meta),
    DEDUPE("dedupe hash", Keys::dedupe),
    DEDUPE_HOLDS("dedupe holds zset", Keys::dedupeHolds),
    RATE_LOG("rate log zset", Keys::rate),
    EVENTS("events stream", Keys::events),
    PROGRESS("progress hash", Keys::progress),
    HISTORY("history hash", Keys::history),
    SCHEDULES("schedules hash", Keys::schedules),
    PAUSED_SCHEDULES("paused schedules hash", Keys::schedulesPaused),
    WORKERS("workers zset", Keys::workers),
    WORKER_INFO("workers info hash", Keys::workerInfo),
    DEPS("deps hash", Keys::deps),
    WAITING("waiting zset", Keys::waiting),
    CHILDREN("children key prefix", Keys::childrenPrefix),
    RESULTS("results hash", Keys::results),
    CONFIG("config hash", Keys::config),
    PURGE_LOCK("lock key", k -> k.lock("purge")),
    /** The index a list reads: given by the caller. */
    INDEX("index zset", null);

    /** How the script's header names it: the words right after {@code KEYS[n]}. */
    final String header;
    private final Function<Keys, byte[]> name;

    ScriptKey(String header, Function<Keys, byte[]> name) {
        this.header = header;
        this.name = name;
    }

    /** The KEYS array of {@code declared}, {@code given} in the place of {@link #INDEX}. */
    static byte[][] of(ScriptKey[] declared, Keys keys, byte[] given) {
        byte[][] out = new byte[declared.length][];
        for (int i = 0; i < declared.length; i++) {
            Function<Keys, byte[]> f = declared[i].name;
            out[i] = f == null ? given : f.apply(keys);
        }
        return out;
    }

    static byte[][] of(ScriptKey[] declared, Keys keys) {
        return of(declared, keys, null);
    }
}
