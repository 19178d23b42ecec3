package dev.delayq.internal;

import dev.delayq.Ack;
import dev.delayq.ChangeResult;
import dev.delayq.CheckReport;
import dev.delayq.ClaimBatch;
import dev.delayq.ClaimOptions;
import dev.delayq.ClaimedJob;
import dev.delayq.DelayQ;
import dev.delayq.DelayQException;
import dev.delayq.Durability;
import dev.delayq.EnqueueResult;
import dev.delayq.FailResult;
import dev.delayq.Job;
import dev.delayq.JobInfo;
import dev.delayq.JobState;
import dev.delayq.Lease;
import dev.delayq.Bounds;
import dev.delayq.PurgeResult;
import dev.delayq.JobQueue;
import dev.delayq.QueueStats;
import dev.delayq.RecoverResult;
import dev.delayq.RenewResult;
import dev.delayq.RetryPolicy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The {@link JobQueue} on Redis: builds each script's KEYS and ARGV, runs it through {@link RedisBackend}
 * and decodes its reply. Holds no job state of its own.
 */
public final class RedisQueue extends SyncQueue {
    /** Jobs per enqueue script call: bounds how long one call holds Redis. */
    static final int ENQUEUE_BATCH = 500;
    /** Payload bytes per enqueue script call (a batch holds at least one job). */
    static final int ENQUEUE_BATCH_BYTES = 4 * 1024 * 1024;
    /** Jobs per complete / renew / release call. */
    static final int ACK_BATCH = 1000;
    private static final int PAGE = 1000;
    private static final int CHECK_PAGE = 500;
    private static final int MAX_PROBLEMS = 1000;

    private final RedisBackend redis;
    private final Keys keys;
    private final ClientSettings settings;
    private final byte[] channel;
    private final String name;
    private final int partition;
    private volatile boolean registered;

    /** A queue without partitions. */
    public RedisQueue(RedisBackend redis, Keys keys, ClientSettings settings) {
        this(redis, keys, settings, keys.queue(), 0);
    }

    /**
     * Partition {@code partition} of the queue {@code name} (its keys carry the hash tag {@code {name#partition}}).
     * Its first enqueue registers {@code name} in the queue registry, as a queue without partitions does.
     */
    RedisQueue(RedisBackend redis, Keys keys, ClientSettings settings, String name, int partition) {
        super(redis);
        this.redis = redis;
        this.keys = keys;
        this.settings = settings;
        this.channel = keys.wakeChannel();
        this.name = name;
        this.partition = partition;
    }

    @Override
    public String name() {
        return name;
    }

    /** This queue's partition number (0 for a queue without partitions). */
    public int partition() {
        return partition;
    }

    /** The key factory of this queue. */
    public Keys keys() {
        return keys;
    }

    /** The backend this queue runs on. */
    public RedisBackend backend() {
        return redis;
    }

    /** The client settings. */
    public ClientSettings settings() {
        return settings;
    }

    // ---- enqueue ----------------------------------------------------------------------------------------

    @Override
    public CompletableFuture<List<EnqueueResult>> enqueueAllAsync(List<Job> jobs) {
        return enqueueAllAsync(jobs, ids(jobs, settings));
    }

    /**
     * Checks the jobs against the client's limits and returns their ids: the caller's, or generated ones.
     *
     * @throws IllegalArgumentException naming the first invalid job
     */
    static String[] ids(List<Job> jobs, ClientSettings settings) {
        if (jobs == null) {
            throw new IllegalArgumentException("jobs must not be null");
        }
        String[] ids = new String[jobs.size()];
        for (int i = 0; i < jobs.size(); i++) {
            Job job = jobs.get(i);
            if (job == null) {
                throw new IllegalArgumentException("job " + i + " is null");
            }
            int size = job.payloadUnsafe().length;
            if (size > settings.maxPayloadBytes()) {
                throw new IllegalArgumentException("payload of job " + (job.id() != null ? "'" + job.id() + "'" : i)
                        + " is " + size + " bytes: the limit is " + settings.maxPayloadBytes() + " bytes");
            }
            ids[i] = job.id() != null ? job.id() : Ids.generate();
        }
        return ids;
    }

    /** Enqueues jobs whose ids were already chosen ({@code ids[i]}, generated where the job has none). */
    CompletableFuture<List<EnqueueResult>> enqueueAllAsync(List<Job> jobs, String[] ids) {
        if (jobs.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        register();
        List<CompletableFuture<List<EnqueueResult>>> calls = new ArrayList<>();
        int start = 0;
        while (start < jobs.size()) {
            int end = start;
            long bytes = 0;
            while (end < jobs.size() && end - start < ENQUEUE_BATCH
                    && (end == start || bytes + jobs.get(end).payloadUnsafe().length <= ENQUEUE_BATCH_BYTES)) {
                bytes += jobs.get(end).payloadUnsafe().length;
                end++;
            }
            calls.add(enqueueBatch(jobs.subList(start, end), Arrays.copyOfRange(ids, start, end)));
            start = end;
        }
        return CompletableFuture.allOf(calls.toArray(new CompletableFuture[0])).thenApply(v -> {
            List<EnqueueResult> out = new ArrayList<>(jobs.size());
            for (CompletableFuture<List<EnqueueResult>> c : calls) {
                out.addAll(c.join());
            }
            return out;
        });
    }

    private CompletableFuture<List<EnqueueResult>> enqueueBatch(List<Job> batch, String[] ids) {
        List<byte[]> keyList = new ArrayList<>(3);
        keyList.add(keys.jobs());
        keyList.add(keys.due());
        keyList.add(keys.meta());
        Map<String, Integer> dedupeIndex = null;
        byte[][] args = new byte[2 + 4 * batch.size()][];
        args[0] = channel;
        args[1] = num(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            Job job = batch.get(i);
            int a = 2 + 4 * i;
            boolean generated = job.id() == null;
            args[a] = utf8(ids[i]);
            args[a + 1] = job.payloadUnsafe();
            args[a + 2] = ascii(job.runAt() != null ? "a" + job.runAt().toEpochMilli() : "d" + job.delay().toMillis());
            int dk = 0;
            if (job.dedupeKey() != null) {
                if (dedupeIndex == null) {
                    dedupeIndex = new LinkedHashMap<>();
                }
                dk = dedupeIndex.computeIfAbsent(job.dedupeKey(), k -> {
                    keyList.add(keys.dedupe(k));
                    return keyList.size(); // Lua's KEYS is 1-based
                });
            }
            args[a + 3] = job.maxAttempts() == 0 && dk == 0 && !generated ? EMPTY
                    : ascii(job.maxAttempts() + "," + dk + "," + (dk > 0 ? job.dedupeTtl().toMillis() : 0) + "," + (generated ? 1 : 0));
        }
        byte[][] keyArray = keyList.toArray(new byte[0][]);
        Durability d = settings.durability();
        CompletableFuture<List<Object>> call = d.waits()
                ? redis.evalDurable(Script.ENQUEUE, d.localAof(), d.replicas(), d.timeout(), keyArray, args)
                : redis.eval(Script.ENQUEUE, keyArray, args);
        return call.thenApply(reply -> {
            if (reply.size() == 2 && asLong(reply.get(0)) == -5) {
                Job bad = batch.get((int) asLong(reply.get(1)) - 1);
                throw new IllegalArgumentException("due time of job " + (bad.id() != null ? "'" + bad.id() + "' " : "")
                        + "(delay " + bad.delay() + ") falls beyond year 9999 on the Redis clock");
            }
            EnqueueResult[] out = new EnqueueResult[batch.size()];
            for (int i = 0; i < reply.size(); i += 2) {
                int index = (int) asLong(reply.get(i)) - 1;
                out[index] = new EnqueueResult(str(reply.get(i + 1)), false);
            }
            for (int i = 0; i < out.length; i++) {
                if (out[i] == null) {
                    out[i] = new EnqueueResult(ids[i], true);
                }
            }
            return Arrays.asList(out);
        });
    }

    private void register() {
        if (!registered) {
            redis.sadd(Keys.registry(keys.prefix()), utf8(name)).thenRun(() -> registered = true);
        }
    }

    // ---- claim / complete / fail / renew / release / recover -------------------------------------------

    @Override
    public CompletableFuture<ClaimBatch> claimAsync(ClaimOptions o) {
        RetryPolicy p = o.retryPolicy();
        long leaseMs = o.lease().toMillis();
        byte[][] k = {keys.due(), keys.leases(), keys.jobs(), keys.meta(), keys.dead()};
        byte[][] a = {num(o.max()), num(leaseMs), num(o.lookahead().toMillis()), num(o.recoverLimit()),
                num(p.base().toMillis()), num(p.cap().toMillis()), seed(), channel, num(p.maxAttempts()),
                o.worker() == null ? EMPTY : utf8(o.worker()), num(o.standby().toMillis())};
        int defaultMax = p.maxAttempts();
        return redis.eval(Script.CLAIM, k, a).thenApply(r -> {
            long now = asLong(r.get(0));
            int n = (r.size() - 7) / 2;
            List<ClaimedJob> jobs = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                String id = str(r.get(7 + 2 * i));
                Record rec = Record.decode((byte[]) r.get(8 + 2 * i));
                jobs.add(new ClaimedJob(id, rec.payload(), rec.attempt(), rec.maxAttempts() > 0 ? rec.maxAttempts() : defaultMax,
                        rec.due(), rec.token(), now + leaseMs, rec.error(), partition));
            }
            return new ClaimBatch(jobs, now, asLong(r.get(1)), asLong(r.get(2)), (int) asLong(r.get(3)), (int) asLong(r.get(4)),
                    asLong(r.get(5)) == 1, asLong(r.get(6)));
        });
    }

    @Override
    public CompletableFuture<List<Ack>> completeAllAsync(List<Lease> leases) {
        byte[][] k = {keys.leases(), keys.jobs(), keys.done(), keys.meta()};
        byte[] retention = num(settings.doneRetention().toMillis());
        return batched(leases, chunk -> redis.eval(Script.COMPLETE, k, leaseArgs(chunk, retention)).thenApply(RedisQueue::acks));
    }

    @Override
    public CompletableFuture<FailResult> failAsync(Lease lease, String error, boolean retryable, Duration backoff) {
        return failAsync(lease, error, retryable, backoff, settings.retryPolicy().maxAttempts());
    }

    /** {@link #failAsync(Lease, String, boolean, Duration)} for jobs without their own max attempts use {@code defaultMax}. */
    public CompletableFuture<FailResult> failAsync(Lease lease, String error, boolean retryable, Duration backoff, int defaultMax) {
        Validation.delay("backoff", backoff);
        byte[][] k = {keys.leases(), keys.jobs(), keys.due(), keys.dead(), keys.meta()};
        byte[][] a = {utf8(lease.id()), num(lease.token()), truncate(error == null ? "failed" : error),
                retryable ? ONE : ZERO, num(backoff.toMillis()), channel, num(defaultMax)};
        return redis.eval(Script.FAIL, k, a).thenApply(r -> {
            long code = asLong(r.get(0));
            if (code == 1 || code == 3) { // 3: this failure was applied already, by a call whose reply was lost
                return new FailResult(FailResult.Outcome.RETRY_SCHEDULED, asLong(r.get(1)));
            } else if (code == 2 || code == 4) {
                return new FailResult(FailResult.Outcome.DEAD, asLong(r.get(1)));
            }
            return new FailResult(code == -2 ? FailResult.Outcome.STALE : FailResult.Outcome.NOT_FOUND, 0);
        });
    }

    @Override
    public CompletableFuture<RenewResult> renewAsync(List<Lease> leases, Duration lease) {
        Validation.positive("lease", lease);
        if (leases.isEmpty()) {
            return CompletableFuture.completedFuture(new RenewResult(0, List.of()));
        }
        byte[][] k = {keys.leases(), keys.jobs()};
        byte[] ms = num(lease.toMillis());
        long[] expiry = new long[1];
        return batched(leases, chunk -> redis.eval(Script.RENEW, k, leaseArgs(chunk, ms)).thenApply(r -> {
            synchronized (expiry) {
                expiry[0] = Math.max(expiry[0], asLong(r.get(0)));
            }
            return acks(r.subList(1, r.size()));
        })).thenApply(acks -> new RenewResult(expiry[0], acks));
    }

    /** {@link #release} without blocking. */
    @Override
    public CompletableFuture<List<Ack>> releaseAsync(List<Lease> leases) {
        byte[][] k = {keys.leases(), keys.jobs(), keys.due(), keys.meta()};
        return batched(leases, chunk -> redis.eval(Script.RELEASE, k, leaseArgs(chunk, channel)).thenApply(RedisQueue::acks));
    }

    @Override
    public RecoverResult recover(int limit, RetryPolicy policy) {
        Validation.range("recover limit", limit, 1, ClaimOptions.MAX_BATCH);
        byte[][] k = {keys.due(), keys.leases(), keys.jobs(), keys.meta(), keys.dead()};
        byte[][] a = {num(limit), num(policy.base().toMillis()), num(policy.cap().toMillis()), seed(), channel,
                num(policy.maxAttempts())};
        List<Object> r = redis.await(redis.eval(Script.RECOVER, k, a), "recover");
        return new RecoverResult((int) asLong(r.get(0)), (int) asLong(r.get(1)), asLong(r.get(2)));
    }

    // ---- administration ---------------------------------------------------------------------------------

    @Override
    public ChangeResult cancel(String id) {
        Validation.jobId(id);
        List<Object> r = redis.await(redis.eval(Script.CANCEL, new byte[][] {keys.due(), keys.jobs(), keys.meta()}, utf8(id)), "cancel");
        return change(r);
    }

    @Override
    public ChangeResult reschedule(String id, Duration delay) {
        Validation.jobId(id);
        Validation.delay("delay", delay);
        return reschedule(id, "d" + delay.toMillis());
    }

    @Override
    public ChangeResult reschedule(String id, Instant at) {
        Validation.jobId(id);
        Validation.instant("instant", at);
        return reschedule(id, "a" + at.toEpochMilli());
    }

    private ChangeResult reschedule(String id, String when) {
        List<Object> r = redis.await(redis.eval(Script.RESCHEDULE, new byte[][] {keys.due(), keys.jobs(), keys.meta()},
                utf8(id), ascii(when), channel), "reschedule");
        if (asLong(r.get(0)) == -5) {
            throw new IllegalArgumentException("new due time of job '" + id + "' falls beyond year 9999 on the Redis clock");
        }
        return change(r);
    }

    @Override
    public Optional<JobInfo> get(String id) {
        Validation.jobId(id);
        byte[][] k = {keys.jobs(), keys.due(), keys.leases(), keys.done(), keys.dead()};
        List<Object> r = redis.await(redis.eval(Script.GET, k, utf8(id)), "get");
        if (r.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(info(id, Record.decode((byte[]) r.get(0)), asLong(r.get(1))));
    }

    private static JobInfo info(String id, Record rec, long score) {
        JobState s = rec.state();
        long due = s == JobState.SCHEDULED ? score : rec.due();
        long lease = s == JobState.PROCESSING ? score : -1;
        long finished = s == JobState.DONE || s == JobState.DEAD ? score : -1;
        return new JobInfo(id, s, rec.attempt(), rec.maxAttempts(), due, lease, finished, rec.token(), rec.error(), rec.payload());
    }

    @Override
    public List<JobInfo> list(JobState state, long offset, int limit) {
        if (state == null) {
            throw new IllegalArgumentException("state must not be null: use scheduled, processing, done or dead");
        }
        if (offset < 0) {
            throw new IllegalArgumentException("offset is " + offset + ": it must be zero or positive");
        }
        Validation.range("limit", limit, 1, 10_000);
        List<JobInfo> out = new ArrayList<>(Math.min(limit, PAGE));
        long pos = offset;
        while (out.size() < limit) {
            Page page = page(state, pos, Math.min(PAGE, limit - out.size()));
            out.addAll(page.jobs());
            if (page.end()) {
                break;
            }
            pos += page.consumed();
        }
        return out;
    }

    /**
     * One page of index entries from position {@code offset}: the jobs (an entry whose record vanished meanwhile
     * is skipped), how many entries were read, and whether the index ended.
     */
    private record Page(List<JobInfo> jobs, int consumed, boolean end) {
    }

    private Page page(JobState state, long offset, int count) {
        List<Object> r = redis.await(redis.eval(Script.LIST, new byte[][] {index(state), keys.jobs()},
                state == JobState.SCHEDULED ? ONE : ZERO, num(offset), num(count)), "list");
        int n = (r.size() - 1) / 3;
        List<JobInfo> jobs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Object raw = r.get(2 + 3 * i);
            if (raw != null) {
                jobs.add(info(str(r.get(1 + 3 * i)), Record.decode((byte[]) raw), asLong(r.get(3 + 3 * i))));
            }
        }
        return new Page(jobs, n, n < count);
    }

    @Override
    public java.util.stream.Stream<JobInfo> stream(JobState state) {
        if (state == null) {
            throw new IllegalArgumentException("state must not be null: use scheduled, processing, done or dead");
        }
        java.util.Iterator<JobInfo> pages = new java.util.Iterator<>() {
            private List<JobInfo> page = List.of();
            private int at;
            private long offset;
            private boolean last;

            @Override
            public boolean hasNext() {
                while (at == page.size() && !last) {
                    Page p = page(state, offset, PAGE);
                    page = p.jobs();
                    at = 0;
                    offset += p.consumed();
                    last = p.end();
                }
                return at < page.size();
            }

            @Override
            public JobInfo next() {
                if (!hasNext()) {
                    throw new java.util.NoSuchElementException();
                }
                return page.get(at++);
            }
        };
        return java.util.stream.StreamSupport.stream(java.util.Spliterators.spliteratorUnknownSize(pages,
                java.util.Spliterator.ORDERED | java.util.Spliterator.NONNULL), false);
    }

    private byte[] index(JobState state) {
        return switch (state) {
            case SCHEDULED -> keys.due();
            case PROCESSING -> keys.leases();
            case DONE -> keys.done();
            case DEAD -> keys.dead();
        };
    }

    @Override
    public QueueStats stats() {
        byte[][] k = {keys.due(), keys.leases(), keys.done(), keys.dead(), keys.meta()};
        List<Object> r = redis.await(redis.eval(Script.STATS, k), "stats");
        Map<String, String> meta = new LinkedHashMap<>();
        for (int i = 4; i + 1 < r.size(); i += 2) {
            meta.put(str(r.get(i)), str(r.get(i + 1)));
        }
        Map<String, Long> totals = new LinkedHashMap<>();
        for (String t : QueueStats.TOTALS) {
            // The claim counter is the fencing-token counter: one token per claim.
            totals.put(t, Long.parseLong(meta.getOrDefault(t.equals("claimed") ? "token" : t, "0")));
        }
        return new QueueStats(name(), asLong(r.get(0)), asLong(r.get(1)), asLong(r.get(2)), asLong(r.get(3)), totals);
    }

    @Override
    public ChangeResult retryDead(String id) {
        Validation.jobId(id);
        byte[][] k = {keys.dead(), keys.due(), keys.jobs(), keys.meta()};
        List<Object> r = redis.await(redis.eval(Script.RETRY_DEAD, k, channel, ascii("id"), utf8(id)), "retry");
        return change(r);
    }

    @Override
    public long retryAllDead() {
        byte[][] k = {keys.dead(), keys.due(), keys.jobs(), keys.meta()};
        long moved = 0;
        while (true) {
            List<Object> r = redis.await(redis.eval(Script.RETRY_DEAD, k, channel, ascii("all"), num(PAGE)), "retry");
            moved += asLong(r.get(0));
            if (asLong(r.get(0)) == 0 || asLong(r.get(1)) == 0) {
                return moved;
            }
        }
    }

    @Override
    public PurgeResult purge() {
        return purge(settings.doneRetention().toMillis(), settings.deadRetention().toMillis());
    }

    @Override
    public PurgeResult purge(Duration olderThan) {
        Validation.delay("older-than", olderThan);
        return purge(olderThan.toMillis(), olderThan.toMillis());
    }

    private PurgeResult purge(long doneAge, long deadAge) {
        long done = 0;
        long dead = 0;
        while (true) {
            PurgeStep step = purgeStep(doneAge, deadAge, 0, null);
            done += step.done();
            dead += step.dead();
            if (!step.more()) {
                return new PurgeResult(done, dead);
            }
        }
    }

    /**
     * One bounded purge call. With {@code lockMillis > 0} it first takes the queue's purge lock (so only one
     * worker of a fleet purges per period) and reports the lock's remaining time when someone else holds it.
     *
     * @param done        done jobs deleted
     * @param dead        dead jobs deleted
     * @param more        a limit was hit: call again
     * @param lockedForMs &gt; 0 when another caller holds the lock
     */
    public record PurgeStep(long done, long dead, boolean more, long lockedForMs) {
    }

    /** See {@link PurgeStep}. */
    public PurgeStep purgeStep(long doneAgeMs, long deadAgeMs, long lockMillis, String owner) {
        byte[][] k = {keys.done(), keys.dead(), keys.jobs(), keys.lock("purge")};
        List<Object> r = redis.await(redis.eval(Script.PURGE, k, num(doneAgeMs), num(deadAgeMs), num(PAGE),
                num(lockMillis), utf8(owner == null ? "-" : owner)), "purge");
        return new PurgeStep(asLong(r.get(0)), asLong(r.get(1)), asLong(r.get(2)) == 1, asLong(r.get(3)));
    }

    @Override
    public CheckReport check() {
        byte[][] k = {keys.jobs(), keys.due(), keys.leases(), keys.done(), keys.dead()};
        List<String> problems = new ArrayList<>();
        long records = 0;
        long entries = 0;
        for (String phase : List.of("jobs", "due", "leases", "done", "dead")) {
            String cursor = "0";
            do {
                List<Object> r = redis.await(redis.eval(Script.CHECK, k, ascii(phase), ascii(cursor), num(CHECK_PAGE)), "check");
                cursor = str(r.get(0));
                long scanned = asLong(r.get(1));
                if (phase.equals("jobs")) {
                    records += scanned;
                } else {
                    entries += scanned;
                }
                for (int i = 2; i < r.size() && problems.size() < MAX_PROBLEMS; i++) {
                    problems.add(str(r.get(i)));
                }
            } while (!cursor.equals("0"));
        }
        return new CheckReport(records, entries, List.copyOf(problems));
    }

    // ---- helpers ----------------------------------------------------------------------------------------

    private static final byte[] ONE = {'1'};
    private static final byte[] ZERO = {'0'};
    private static final byte[] EMPTY = {};

    private interface Chunk<T> {
        CompletableFuture<List<T>> run(List<Lease> chunk);
    }

    private static <T> CompletableFuture<List<T>> batched(List<Lease> leases, Chunk<T> call) {
        if (leases.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        if (leases.size() <= ACK_BATCH) {
            return call.run(leases);
        }
        List<CompletableFuture<List<T>>> parts = new ArrayList<>();
        for (int i = 0; i < leases.size(); i += ACK_BATCH) {
            parts.add(call.run(leases.subList(i, Math.min(leases.size(), i + ACK_BATCH))));
        }
        return CompletableFuture.allOf(parts.toArray(new CompletableFuture[0])).thenApply(v -> {
            List<T> out = new ArrayList<>(leases.size());
            parts.forEach(p -> out.addAll(p.join()));
            return out;
        });
    }

    private static byte[][] leaseArgs(List<Lease> leases, byte[] first) {
        byte[][] a = new byte[1 + 2 * leases.size()][];
        a[0] = first;
        for (int i = 0; i < leases.size(); i++) {
            a[1 + 2 * i] = utf8(leases.get(i).id());
            a[2 + 2 * i] = num(leases.get(i).token());
        }
        return a;
    }

    private static List<Ack> acks(List<Object> codes) {
        List<Ack> out = new ArrayList<>(codes.size());
        for (Object c : codes) {
            long v = asLong(c);
            out.add(v == 1 ? Ack.OK : v == 2 ? Ack.ALREADY_APPLIED : v == -2 ? Ack.STALE : Ack.NOT_FOUND);
        }
        return out;
    }

    private static ChangeResult change(List<Object> r) {
        long code = asLong(r.get(0));
        if (code == 1) {
            return new ChangeResult(ChangeResult.Status.CHANGED, null, r.size() > 1 ? asLong(r.get(1)) : 0);
        }
        if (code == -3) {
            return new ChangeResult(ChangeResult.Status.WRONG_STATE, JobState.ofCode((int) asLong(r.get(1))), 0);
        }
        if (code == -1) {
            return new ChangeResult(ChangeResult.Status.NOT_FOUND, null, 0);
        }
        if (code >= 0) { // retry_dead "id": { moved, dead_left }
            return new ChangeResult(ChangeResult.Status.CHANGED, null, 0);
        }
        throw new DelayQException("unexpected script reply code " + code);
    }

    private static byte[] truncate(String error) {
        byte[] b = utf8(error);
        if (b.length <= Bounds.MAX_ERROR_BYTES) {
            return b;
        }
        int end = Bounds.MAX_ERROR_BYTES;
        while (end > 0 && (b[end] & 0xC0) == 0x80) {
            end--; // never cut a UTF-8 sequence in half
        }
        byte[] out = new byte[end];
        System.arraycopy(b, 0, out, 0, end);
        return out;
    }

    private static byte[] seed() {
        return num(ThreadLocalRandom.current().nextInt(1, Integer.MAX_VALUE));
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] num(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }

    static String str(Object o) {
        return o == null ? null : new String((byte[]) o, StandardCharsets.UTF_8);
    }

    static long asLong(Object o) {
        if (o instanceof Long l) {
            return l;
        }
        if (o instanceof byte[] b) {
            return Long.parseLong(new String(b, StandardCharsets.US_ASCII));
        }
        throw new DelayQException("unexpected script reply element " + o);
    }
}
