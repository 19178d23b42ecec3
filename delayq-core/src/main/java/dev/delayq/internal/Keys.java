package dev.delayq.internal;

import java.nio.charset.StandardCharsets;

/**
 * The one place key names are built. Every key of a queue carries the hash tag {@code {<queue>}}, so one
 * queue lives in one Redis Cluster slot and every script touching it is cluster-safe.
 *
 * <pre>
 * &lt;prefix&gt;:{&lt;queue&gt;}:jobs      HASH  job id -&gt; packed record (state, attempts, token, error, payload);
 *                                  "\0" + job id -&gt; lease overlay of a job leased fresh with a record of 256 bytes
 *                                  or more (state, token, due, attempt; see lua/includes/record.lua)
 * &lt;prefix&gt;:{&lt;queue&gt;}:due       ZSET  scheduled jobs; score = due ms, member = 6-byte seq + id
 * &lt;prefix&gt;:{&lt;queue&gt;}:leases    ZSET  jobs being processed; score = lease expiry ms
 * &lt;prefix&gt;:{&lt;queue&gt;}:done:batches ZSET completed jobs kept for the retention, one entry per complete call;
 *                                  score = finish ms, member = a tag and the ids (see lua/includes/record.lua)
 * &lt;prefix&gt;:{&lt;queue&gt;}:done      ZSET  completed jobs kept by earlier versions, one entry each; score = finish ms
 *                                  (read and deleted from, no longer added to)
 * &lt;prefix&gt;:{&lt;queue&gt;}:dead      ZSET  dead jobs; score = time of death
 * &lt;prefix&gt;:{&lt;queue&gt;}:meta      HASH  sequence, token counter, totals
 * &lt;prefix&gt;:{&lt;queue&gt;}:dedupe    HASH  dedupe key -&gt; id of the job owning it
 * &lt;prefix&gt;:{&lt;queue&gt;}:dedupe:holds ZSET dedupe keys whose job ended -&gt; until when they hold
 * &lt;prefix&gt;:{&lt;queue&gt;}:history   HASH  per-minute counters (1440 slots)
 * &lt;prefix&gt;:{&lt;queue&gt;}:due:prio  ZSET  scheduled jobs of priority 1-9; score = (9 - p) * 2^48 + due ms
 * &lt;prefix&gt;:{&lt;queue&gt;}:retrying  ZSET  failed jobs waiting for their retry; score = retry due ms, member = id
 *                                  (added by fail.lua; an entry counts only while its score is in the future, see
 *                                  lua/stats.lua)
 * &lt;prefix&gt;:{&lt;queue&gt;}:errors    HASH  job id -&gt; its last 10 failures, newest first (only jobs that failed; written
 *                                  by fail.lua, deleted with the record: see lua/fail.lua)
 * &lt;prefix&gt;:{&lt;queue&gt;}:rate      ZSET  the rate limit's grants of the current window
 * &lt;prefix&gt;:{&lt;queue&gt;}:events    STREAM state changes (only while events are on), capped
 * &lt;prefix&gt;:{&lt;queue&gt;}:progress  HASH  job id -&gt; progress its running handler reported
 * &lt;prefix&gt;:{&lt;queue&gt;}:deps      HASH  flows: "n\0" + child -&gt; its parent counters, "p\0" + child -&gt; its pending
 *                                  parents (see lua/includes/deps.lua); only while the child waits
 * &lt;prefix&gt;:{&lt;queue&gt;}:waiting   ZSET  jobs waiting for their parents; score = enqueue ms
 * &lt;prefix&gt;:{&lt;queue&gt;}:children:&lt;parent id&gt; SET the members (6-byte seq + id) of the jobs waiting for that
 *                                  parent; the scripts append the id to {@link #childrenPrefix()} (same slot)
 * &lt;prefix&gt;:{&lt;queue&gt;}:results   HASH  job id -&gt; the result its handler left (done jobs, while kept), "\0" + child
 *                                  -&gt; the ids of its parents (jobs with parents; see lua/includes/results.lua)
 * &lt;prefix&gt;:{&lt;queue&gt;}:children:  ZSET  the outbox of notices to children in other queues (lua/includes/remote.lua):
 *                                  the children prefix itself, {@link #notices()}
 * &lt;prefix&gt;:{&lt;queue&gt;}:lock:&lt;n&gt;  STRING short maintenance lock
 * &lt;prefix&gt;:{&lt;queue&gt;}:schedules HASH  schedule name -&gt; its definition and next/last tick (see ops.ScheduleRecord)
 * &lt;prefix&gt;:{&lt;queue&gt;}:schedules:paused HASH  name of a paused schedule -&gt; when it was paused (Redis ms); only
 *                                  while one is paused (the schedule record keeps its format: no next tick)
 * &lt;prefix&gt;:{&lt;queue&gt;}:schedules:changed  pub/sub channel (not a key): "a schedule was added, changed or removed"
 * &lt;prefix&gt;:{&lt;queue&gt;}:wake      pub/sub channel (not a key): "an earlier job is now the head"
 * &lt;prefix&gt;:{&lt;queue&gt;}:config    HASH  queue settings stored in Redis: {@code partitions}
 * &lt;prefix&gt;:{&lt;queue&gt;}:workers   ZSET  the queue's workers by heartbeat; score = expiry ms (Redis clock), member = id
 * &lt;prefix&gt;:{&lt;queue&gt;}:workers:info HASH worker id -&gt; last beat ms and the worker's info (see ops.Workers)
 * &lt;prefix&gt;:queues            SET   names of the queues used under this prefix
 * </pre>
 *
 * <p>A queue with P partitions keeps P such sets of keys, each with the hash tag {@code {<queue>#<i>}} (queue
 * names cannot contain {@code #}, so these never meet another queue's keys); its config key and its worker
 * registry ({@code workers}, {@code workers:info}) keep the plain {@code {<queue>}} tag: one place for the whole queue.
 */
public final class Keys {
    private final String prefix;
    private final String queue;
    private final String base;
    private final byte[] jobs;
    private final byte[] due;
    private final byte[] leases;
    private final byte[] done;
    private final byte[] doneBatches;
    private final byte[] dead;
    private final byte[] meta;
    private final byte[] wake;
    private final byte[] dedupe;
    private final byte[] holds;
    private final byte[] history;
    private final byte[] prio;
    private final byte[] retrying;
    private final byte[] rate;
    private final byte[] events;
    private final byte[] progress;
    private final byte[] schedules;
    private final byte[] schedulesChanged;
    private final byte[] schedulesPaused;
    private final byte[] errors;
    private final byte[] deps;
    private final byte[] waiting;
    private final byte[] children;
    private final byte[] results;

    /**
     * Keys of one queue. Names are validated by the caller ({@link Validation}).
     */
    public Keys(String prefix, String queue) {
        this.prefix = prefix;
        this.queue = queue;
        this.base = prefix + ":{" + queue + "}:";
        this.jobs = bytes(base + "jobs");
        this.due = bytes(base + "due");
        this.leases = bytes(base + "leases");
        this.done = bytes(base + "done");
        this.doneBatches = bytes(base + "done:batches");
        this.dead = bytes(base + "dead");
        this.meta = bytes(base + "meta");
        this.wake = bytes(base + "wake");
        this.dedupe = bytes(base + "dedupe");
        this.holds = bytes(base + "dedupe:holds");
        this.history = bytes(base + "history");
        this.prio = bytes(base + "due:prio");
        this.retrying = bytes(base + "retrying");
        this.rate = bytes(base + "rate");
        this.events = bytes(base + "events");
        this.progress = bytes(base + "progress");
        this.schedules = bytes(base + "schedules");
        this.schedulesChanged = bytes(base + "schedules:changed");
        this.schedulesPaused = bytes(base + "schedules:paused");
        this.errors = bytes(base + "errors");
        this.deps = bytes(base + "deps");
        this.waiting = bytes(base + "waiting");
        this.children = bytes(base + "children:");
        this.results = bytes(base + "results");
    }

    /** The keys of partition {@code i} of this queue. */
    public Keys partition(int i) {
        return new Keys(prefix, queue + "#" + i);
    }

    /** The queue's settings kept in Redis (partition count). */
    public byte[] config() {
        return bytes(base + "config");
    }

    /**
     * The queue's worker registry: worker id -&gt; when its heartbeat expires (ms, Redis's clock). Of the queue's plain
     * key set ({@code {<queue>}}), whatever its partition count.
     */
    public byte[] workers() {
        return bytes(base + "workers");
    }

    /** Beside {@link #workers()}: worker id -&gt; its last beat and info. */
    public byte[] workerInfo() {
        return bytes(base + "workers:info");
    }

    /** The set of queue names used under {@code prefix}. */
    public static byte[] registry(String prefix) {
        return bytes(prefix + ":queues");
    }

    public String prefix() {
        return prefix;
    }

    public String queue() {
        return queue;
    }

    public byte[] jobs() {
        return jobs;
    }

    public byte[] due() {
        return due;
    }

    /** Failed jobs waiting for their retry: id -&gt; retry due ms (only entries scored in the future count). */
    public byte[] retrying() {
        return retrying;
    }

    public byte[] leases() {
        return leases;
    }

    public byte[] done() {
        return done;
    }

    public byte[] doneBatches() {
        return doneBatches;
    }

    public byte[] dead() {
        return dead;
    }

    public byte[] meta() {
        return meta;
    }

    /** The pub/sub channel on which scripts announce an earlier head of the due set. */
    public byte[] wakeChannel() {
        return wake;
    }

    /** The hash of dedupe keys and the jobs owning them. */
    public byte[] dedupe() {
        return dedupe;
    }

    /** The sorted set of dedupe keys whose job ended, scored by until when they hold. */
    public byte[] dedupeHolds() {
        return holds;
    }

    /** Scheduled jobs of priority 1-9 (see lua/includes/flow.lua). */
    public byte[] prio() {
        return prio;
    }

    /** The rate limit's log of grants in the current window. */
    public byte[] rate() {
        return rate;
    }

    /** Flows: each waiting child's parent counters and pending parents (see lua/includes/deps.lua). */
    public byte[] deps() {
        return deps;
    }

    /** Flows: the jobs waiting for their parents, scored by enqueue ms. */
    public byte[] waiting() {
        return waiting;
    }

    /**
     * Flows: the prefix of a parent's children set; a script appends the parent's id (the key keeps this queue's hash
     * tag, so it is in the same slot).
     */
    public byte[] childrenPrefix() {
        return children;
    }

    /**
     * Results: job id -&gt; the result its handler left (done jobs, while kept), and NUL + child id -&gt; its parents' ids.
     */
    public byte[] results() {
        return results;
    }

    /**
     * Flows: the outbox of notices to children waiting in other key sets (lua/includes/remote.lua). The children prefix
     * itself (no job id is empty, so no children set has this name): every script that ends a parent names it already.
     */
    public byte[] notices() {
        return children;
    }

    /** The event stream (while events are on). */
    public byte[] events() {
        return events;
    }

    /** Progress reported by running handlers. */
    public byte[] progress() {
        return progress;
    }

    /** The recurring schedules kept in this key set (on a partitioned queue: those whose name routes here). */
    public byte[] schedules() {
        return schedules;
    }

    /** The error histories of the jobs of this key set that failed: job id -&gt; its last failures. */
    public byte[] errors() {
        return errors;
    }

    /** The names of the paused schedules of this key set (beside {@link #schedules()}). */
    public byte[] schedulesPaused() {
        return schedulesPaused;
    }

    /** The pub/sub channel on which a schedule's upsert or removal is announced to the workers' tickers. */
    public byte[] schedulesChannel() {
        return schedulesChanged;
    }

    /** The per-minute counters of the queue. */
    public byte[] history() {
        return history;
    }

    /** A short-lived lock named {@code name} (e.g. "purge"). */
    public byte[] lock(String name) {
        return bytes(base + "lock:" + name);
    }

    /** The pattern matching every key of this queue (for tests and clean-up). */
    public String pattern() {
        return prefix + ":{" + queue + "}:*";
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
