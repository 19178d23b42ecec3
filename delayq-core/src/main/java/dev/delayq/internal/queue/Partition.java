package dev.delayq.internal.queue;

import dev.delayq.Ack;
import dev.delayq.ChangeResult;
import dev.delayq.CheckReport;
import dev.delayq.ClaimBatch;
import dev.delayq.ClaimOptions;
import dev.delayq.EnqueueResult;
import dev.delayq.FailResult;
import dev.delayq.Job;
import dev.delayq.JobInfo;
import dev.delayq.JobState;
import dev.delayq.Limits;
import dev.delayq.MinuteStats;
import dev.delayq.Lease;
import dev.delayq.PurgeResult;
import dev.delayq.QueueStats;
import dev.delayq.RecoverResult;
import dev.delayq.RenewResult;
import dev.delayq.RetryPolicy;
import dev.delayq.WorkerInfo;
import dev.delayq.internal.ClientLifecycle;
import dev.delayq.internal.ClientSettings;
import dev.delayq.internal.Keys;
import dev.delayq.internal.WorkerBeat;
import dev.delayq.internal.ops.Cancel;
import dev.delayq.internal.ops.Claim;
import dev.delayq.internal.ops.Complete;
import dev.delayq.internal.ops.Fail;
import dev.delayq.internal.ops.Get;
import dev.delayq.internal.ops.History;
import dev.delayq.internal.ops.Notices;
import dev.delayq.internal.ops.Pause;
import dev.delayq.internal.ops.Progress;
import dev.delayq.internal.ops.Settings;
import dev.delayq.internal.ops.Purge;
import dev.delayq.internal.ops.Recover;
import dev.delayq.internal.ops.Release;
import dev.delayq.internal.ops.Renew;
import dev.delayq.internal.ops.Reschedule;
import dev.delayq.internal.ops.RetryDead;
import dev.delayq.internal.ops.Stats;
import dev.delayq.internal.ops.Workers;
import dev.delayq.internal.redis.RedisBackend;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

/**
 * One set of a queue's keys on Redis: the only partition of a queue without partitions ({@code {name}}), or partition
 * {@code i} of a partitioned one ({@code {name#i}}). Each method runs one operation's script(s) on this key set
 * ({@code internal.ops}) and holds no job state; input is validated once, at the edge ({@link RedisQueue},
 * {@link RedisInspector}), and routing to a partition is theirs too ({@link Partitions}).
 */
public final class Partition {

    /** Events kept per queue unless a cap is given. */
    static final int DEFAULT_EVENTS_CAP = 10_000;
    /** How long a notice whose child does not exist yet waits before it is tried again (lua/includes/remote.lua). */
    static final long NOTICE_RETRY_MS = 5_000;
    /** Dead jobs moved back per retry-all call. */
    private static final int RETRY_STEP = 1000;

    private final RedisBackend redis;
    private final Keys keys;
    private final ClientSettings settings;
    private final String name;
    private final int partition;
    private final ClientLifecycle lifecycle;
    private final Registration registration;

    /**
     * Partition {@code partition} of the queue {@code name} on the key set {@code keys}. Its first enqueue registers
     * {@code name} in the queue registry.
     */
    Partition(RedisBackend redis, Keys keys, ClientSettings settings, String name, int partition, ClientLifecycle lifecycle) {
        this.redis = redis;
        this.keys = keys;
        this.settings = settings;
        this.name = name;
        this.partition = partition;
        this.lifecycle = lifecycle;
        this.registration = new Registration(redis, keys.prefix(), name);
    }

    /** This partition's operations over another connection of the client ({@link RedisBackend#sibling()}). */
    public Partition on(RedisBackend other) {
        return new Partition(other, keys, settings, name, partition, lifecycle);
    }

    /** The client's lifecycle: where workers on this queue register so that closing the client closes them. */
    public ClientLifecycle lifecycle() {
        return lifecycle;
    }

    /** The name of the queue this partition belongs to. */
    public String name() {
        return name;
    }

    /** This partition's number (0 for a queue without partitions). */
    public int partition() {
        return partition;
    }

    /** The key factory of this partition. */
    public Keys keys() {
        return keys;
    }

    /** The backend this partition runs on. */
    public RedisBackend backend() {
        return redis;
    }

    /** The client settings. */
    public ClientSettings settings() {
        return settings;
    }

    // ---- producing ---------------------------------------------------------------------------------------------

    /** Enqueues jobs under the ids {@code ids} (their own, or adjusted to this partition). */
    CompletableFuture<List<EnqueueResult>> enqueueAll(List<Job> jobs, String[] ids) {
        return enqueueAll(jobs, ids, null);
    }

    /** As {@link #enqueueAll(List, String[])}, with the jobs' remote tags (lua/includes/remote.lua; null: none). */
    CompletableFuture<List<EnqueueResult>> enqueueAll(List<Job> jobs, String[] ids, String[] remote) {
        if (jobs.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        registration.ensure();
        return EnqueueBatches.send(redis, keys, settings.durability(), jobs, ids, remote);
    }

    // ---- the worker's primitives ------------------------------------------------------------------------------

    /** One claim on this partition. */
    public CompletableFuture<ClaimBatch> claimAsync(ClaimOptions o) {
        return Claim.call(redis, keys, partition, o);
    }

    /** Completes leases of this partition. */
    public CompletableFuture<List<Ack>> completeAllAsync(List<Lease> leases) {
        return Complete.call(redis, keys, settings.doneRetention(), leases);
    }

    /** Completes leases of this partition, with the results (or {@code null}: none) their handlers left. */
    public CompletableFuture<List<Ack>> completeAllAsync(List<Lease> leases, java.util.Map<Lease, byte[]> results) {
        return Complete.call(redis, keys, settings.doneRetention(), leases, results);
    }

    /**
     * The results of job {@code id}'s parents that are still kept; those of parents in other queues read from their key
     * sets on the calling thread (a handler's), one call each.
     */
    public CompletableFuture<java.util.Map<String, byte[]>> parentResultsAsync(String id) {
        return CompletableFuture.completedFuture(RemoteParents.results(redis, keys.prefix(),
                redis.await(dev.delayq.internal.ops.ParentResults.call(redis, keys, id), "parent results")));
    }

    /** Fails a lease of this partition, where jobs without their own max attempts use {@code defaultMax}. */
    public CompletableFuture<FailResult> failAsync(Lease lease, String error, boolean retryable, Duration backoff, int defaultMax) {
        return Fail.call(redis, keys, lease, error, retryable, backoff, defaultMax);
    }

    /** Renews leases of this partition. */
    public CompletableFuture<RenewResult> renewAsync(List<Lease> leases, Duration lease) {
        return Renew.call(redis, keys, leases, lease);
    }

    /** Releases leases of this partition. */
    public CompletableFuture<List<Ack>> releaseAsync(List<Lease> leases) {
        return Release.call(redis, keys, leases);
    }

    /** Recovers at most {@code limit} expired leases of this partition. */
    public RecoverResult recover(int limit, RetryPolicy policy) {
        return redis.await(Recover.call(redis, keys, limit, policy), "recover");
    }

    /** Records a running job's progress, fenced by its lease. */
    public CompletableFuture<Ack> progressAsync(Lease lease, String progress) {
        return Progress.call(redis, keys, lease, progress);
    }

    // ---- the queue's worker registry: of its plain key set, whichever partition is asked -------------------------

    private Keys registry() {
        return new Keys(keys.prefix(), name);
    }

    /** Records a worker's heartbeat, live for {@code ttlMillis}; completes with Redis's time of the beat. */
    public CompletableFuture<Long> workerBeat(WorkerBeat beat, long ttlMillis) {
        return Workers.beat(redis, registry(), beat, ttlMillis);
    }

    /** Removes a worker from the registry at once (its graceful close). */
    public CompletableFuture<Boolean> workerGone(String id) {
        return Workers.gone(redis, registry(), id);
    }

    List<WorkerInfo> workers() {
        return redis.await(Workers.live(redis, registry()), "workers");
    }

    // ---- by id ------------------------------------------------------------------------------------------------

    ChangeResult cancel(String id) {
        return redis.await(Cancel.cancel(redis, keys, id), "cancel");
    }

    ChangeResult cancelByDedupeKey(String key) {
        return redis.await(Cancel.cancelByDedupe(redis, keys, key), "cancel");
    }

    ChangeResult delete(String id) {
        return redis.await(Cancel.delete(redis, keys, id), "delete");
    }

    ChangeResult reschedule(String id, Duration delay, Instant at) {
        return redis.await(Reschedule.call(redis, keys, id, delay, at), "reschedule");
    }

    Optional<JobInfo> get(String id) {
        return redis.await(Get.call(redis, keys, id), "get");
    }

    ChangeResult rescheduleByDedupeKey(String key, Duration delay, Instant at) {
        return redis.await(Reschedule.byDedupe(redis, keys, key, delay, at), "reschedule");
    }

    Optional<JobInfo> getByDedupeKey(String key) {
        return redis.await(Get.byDedupe(redis, keys, key), "get");
    }

    /** The job, its payload cut to {@code preview} bytes by the script. */
    Optional<JobInfo> get(String id, int preview) {
        return redis.await(Get.call(redis, keys, id, preview), "get");
    }

    List<dev.delayq.JobError> errors(String id) {
        return redis.await(dev.delayq.internal.ops.ErrorHistory.call(redis, keys, id), "errors");
    }

    Optional<dev.delayq.FlowLinks> links(String id) {
        return redis.await(dev.delayq.internal.ops.Links.call(redis, keys, id), "links");
    }

    Optional<dev.delayq.FlowIds> flowIds(String id, int mostChildren) {
        return redis.await(dev.delayq.internal.ops.FlowIdsRead.call(redis, keys, id, mostChildren), "flow ids");
    }

    ChangeResult retryDead(String id) {
        return redis.await(RetryDead.one(redis, keys, id), "retry");
    }

    // ---- the whole partition ----------------------------------------------------------------------------------

    boolean pause(boolean paused) {
        return redis.await(Pause.call(redis, keys, paused), paused ? "pause" : "resume");
    }

    void limits(Limits limits) {
        redis.await(Settings.limits(redis, keys, limits), "limits");
    }

    void groupLimits(Limits limits) {
        redis.await(Settings.groupLimits(redis, keys, limits), "group limits");
    }

    void group(String group, String value) {
        redis.await(Settings.group(redis, keys, group, value), "group limits");
    }

    dev.delayq.GroupStats groups(int top) {
        return redis.await(dev.delayq.internal.ops.GroupOps.stats(redis, keys, top, dev.delayq.GroupStats.MAX_READ), "groups");
    }

    void events(int cap) {
        redis.await(Settings.events(redis, keys, cap), "events");
    }

    List<MinuteStats> history(int minutes) {
        return redis.await(History.call(redis, keys, minutes), "history");
    }

    List<MinuteStats> hourlyHistory(int hours) {
        return redis.await(History.call(redis, keys, hours, true), "history");
    }

    List<JobInfo> list(JobState state, long offset, int limit, int preview) {
        return JobPages.list(redis, keys, state, offset, limit, preview);
    }

    /**
     * Every job in {@code state}, in index order; scheduled jobs in due order whatever their priority (the due set and
     * the set of priorities 1-9 merged).
     */
    Stream<JobInfo> stream(JobState state, int preview) {
        return JobPages.stream(redis, keys, state, preview);
    }

    /** This partition's figures, without waiting (failures translated). */
    CompletableFuture<QueueStats> statsAsync() {
        return dev.delayq.internal.redis.RedisErrors.translated(Stats.call(redis, keys, name), "stats", redis);
    }

    /** This partition's figures. */
    public QueueStats stats() {
        return redis.await(Stats.call(redis, keys, name), "stats");
    }

    long retryAllDead() {
        long moved = 0;
        long start = 0;
        while (true) {
            RetryDead.Step step = redis.await(RetryDead.step(redis, keys, RETRY_STEP, start), "retry");
            moved += step.moved();
            start += step.skipped();
            if (step.moved() + step.skipped() == 0 || step.deadLeft() <= start) {
                return moved;
            }
        }
    }

    /** Purges done and dead jobs older than their ages, in steps of {@link Purge#STEP}. */
    PurgeResult purge(long doneAgeMs, long deadAgeMs) {
        long done = 0;
        long dead = 0;
        while (true) {
            Purge.Step step = purgeStep(doneAgeMs, deadAgeMs, Purge.STEP, 0, null);
            done += step.done();
            dead += step.dead();
            if (!step.more()) {
                return new PurgeResult(done, dead);
            }
        }
    }

    /** One purge call of at most {@code jobs} jobs; see {@link Purge.Step}. */
    public Purge.Step purgeStep(long doneAgeMs, long deadAgeMs, int jobs, long lockMillis, String owner) {
        return redis.await(Purge.step(redis, keys, doneAgeMs, deadAgeMs, jobs, lockMillis, owner), "purge");
    }

    /** What one pass of {@link #relayNotices} did. */
    public record Relayed(long applied, long expired, long putBack, boolean more) {
    }

    /**
     * One pass over this key set's outbox of notices to children in other key sets (lua/includes/remote.lua): each
     * notice due is applied to its child's key set (idempotent), then acknowledged; one whose child does not exist
     * (yet) is put back for {@link #NOTICE_RETRY_MS}, and acknowledged unapplied once older than {@code expiryMs}.
     * Bounded: at most {@code steps} reads of {@link Notices#STEP} notices, then the last acknowledgements. An
     * application waits for the client's {@link dev.delayq.Durability} (as an enqueue does) before its acknowledgement.
     */
    public Relayed relayNotices(long expiryMs, int steps) {
        return NoticePass.run(redis, keys, settings, expiryMs, steps);
    }

    /** The consistency check of this key set. */
    CheckReport check() {
        return QueueCheck.run(redis, keys);
    }
}
