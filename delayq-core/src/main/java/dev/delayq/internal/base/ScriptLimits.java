package dev.delayq.internal.base;

import java.util.Map;

/**
 * The limits the Java side and the Lua scripts share, each defined once, here. A script names one as
 * {@code {{NAME}}} and {@code Script} writes the value in its place when it loads the script (an unknown or
 * unexpanded placeholder fails the load), so a Java check and the script's own check of an argument can never
 * drift apart.
 */
public final class ScriptLimits {
    /**
     * Jobs per claim, per complete, renew or release call and per enqueue call; expired leases recovered per call;
     * dead jobs retried per step. Bounds how long one call holds Redis.
     */
    public static final int MAX_BATCH = 1000;
    /** Attempts a job may be given, and stalls (expired leases) it may have before it goes dead. */
    public static final int MAX_ATTEMPTS = 1_000_000;
    /** The longest progress text a handler may report, in UTF-8 bytes. */
    public static final int MAX_PROGRESS_BYTES = 4096;
    /** Hours of per-hour history a queue keeps (seven days). */
    public static final int HISTORY_HOURS = 168;
    /** Minutes of per-minute history a queue keeps (one day). */
    public static final int HISTORY_MINUTES = 1440;
    /** Missed ticks of a schedule that run at most; a schedule call enqueues at most one more (the next tick). */
    public static final int MAX_CATCH_UP = 100;
    /** Failures a job's error history keeps (the latest). */
    public static final int MAX_ERRORS = 10;
    /**
     * Queue partitions one stats_many.lua call reads (a few O(log n) reads each): 2,001 queues cost 9 calls. Bounds how
     * long one call holds Redis.
     */
    public static final int MAX_STATS_MANY = 250;
    /** Parents one job may wait for (a flow: see lua/includes/deps.lua). */
    public static final int MAX_PARENTS = 1000;
    /** The largest result a handler may leave with its done job, in bytes (64 KiB: see lua/includes/results.lua). */
    public static final int MAX_RESULT_BYTES = 65536;

    /** The placeholders the scripts may name, and their values. */
    public static final Map<String, Long> PLACEHOLDERS = Map.of(
            "HISTORY_HOURS", (long) HISTORY_HOURS,
            "MAX_BATCH", (long) MAX_BATCH,
            "MAX_ATTEMPTS", (long) MAX_ATTEMPTS,
            "MAX_PROGRESS_BYTES", (long) MAX_PROGRESS_BYTES,
            "HISTORY_MINUTES", (long) HISTORY_MINUTES,
            "MAX_TICKS", (long) MAX_CATCH_UP + 1,
            "MAX_ERRORS", (long) MAX_ERRORS,
            "MAX_STATS_MANY", (long) MAX_STATS_MANY,
            "MAX_PARENTS", (long) MAX_PARENTS,
            "MAX_RESULT_BYTES", (long) MAX_RESULT_BYTES);

    private ScriptLimits() {
    }
}
