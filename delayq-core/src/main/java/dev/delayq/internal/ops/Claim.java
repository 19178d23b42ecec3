package dev.delayq.internal.ops;

import static dev.delayq.internal.ops.Args.num;
import static dev.delayq.internal.ops.Args.utf8;
import static dev.delayq.internal.ops.ScriptKey.DEAD;
import static dev.delayq.internal.ops.ScriptKey.DEDUPE;
import static dev.delayq.internal.ops.ScriptKey.DEDUPE_HOLDS;
import static dev.delayq.internal.ops.ScriptKey.DUE;
import static dev.delayq.internal.ops.ScriptKey.EVENTS;
import static dev.delayq.internal.ops.ScriptKey.HISTORY;
import static dev.delayq.internal.ops.ScriptKey.JOBS;
import static dev.delayq.internal.ops.ScriptKey.LEASES;
import static dev.delayq.internal.ops.ScriptKey.META;
import static dev.delayq.internal.ops.ScriptKey.PRIORITY_DUE;
import static dev.delayq.internal.ops.ScriptKey.PROGRESS;
import static dev.delayq.internal.ops.ScriptKey.RATE_LOG;

import dev.delayq.ClaimBatch;
import dev.delayq.ClaimOptions;
import dev.delayq.ClaimedJob;
import dev.delayq.RetryPolicy;
import dev.delayq.internal.Keys;
import dev.delayq.internal.Record;
import dev.delayq.internal.base.ScriptLimits;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** {@code claim.lua}: recover expired leases, then lease up to N due jobs. */
public final class Claim {
    /** Record bytes one claim returns at most (at least one job whatever its size). */
    public static final long MAX_BYTES = 8L * 1024 * 1024;

    private static final ScriptKey[] KEYS = {DUE, LEASES, JOBS, META, DEAD, DEDUPE, DEDUPE_HOLDS, HISTORY, PRIORITY_DUE, EVENTS,
        RATE_LOG, PROGRESS, ScriptKey.DEPS, ScriptKey.WAITING, ScriptKey.CHILDREN};

    /** ARGV, in order. */
    enum Arg { MAX_JOBS, LEASE_MS, LOOKAHEAD_MS, MAX_EXPIRED, RECOVERY_BACKOFF_BASE_MS, RECOVERY_BACKOFF_CAP_MS, RANDOM_SEED,
        WAKE_CHANNEL, MAX_STALLS, WORKER, STAND_BY_MS, MOST_RECORD_BYTES }

    /** The reply's fields before the jobs. */
    enum Out { NOW, NEXT_DUE, NEXT_EXPIRY, RECOVERED, RECOVERED_DEAD, COVERED, NOW_US, PAUSED, QUARANTINED, LIMITED }

    /** Each job's fields after them. */
    enum Job { ID, RECORD }

    static final Protocol PROTOCOL = Protocol.of(Script.CLAIM, KEYS, Arg.values(), null, Out.values(), Job.values())
            .bound(Arg.MAX_JOBS, 0, ScriptLimits.MAX_BATCH).bound(Arg.LEASE_MS, 1, Protocol.MS)
            .bound(Arg.LOOKAHEAD_MS, 0, Protocol.MS).bound(Arg.MAX_EXPIRED, 1, ScriptLimits.MAX_BATCH)
            .bound(Arg.RECOVERY_BACKOFF_BASE_MS, 0, Protocol.MS).bound(Arg.RECOVERY_BACKOFF_CAP_MS, 0, Protocol.MS)
            .bound(Arg.RANDOM_SEED, 0, 1L << 31).bound(Arg.MAX_STALLS, 0, ScriptLimits.MAX_ATTEMPTS)
            .bound(Arg.STAND_BY_MS, 0, Protocol.MS).bound(Arg.MOST_RECORD_BYTES, 1, Protocol.MS);
    private static final int ARGS = PROTOCOL.argCount();
    private static final int HEAD = Out.values().length;
    private static final int WIDTH = Job.values().length;

    private Claim() {
    }

    /** Claims from the queue (or partition {@code partition}) whose keys are {@code keys}. */
    public static CompletableFuture<ClaimBatch> call(RedisBackend redis, Keys keys, int partition, ClaimOptions o) {
        RetryPolicy p = o.retryPolicy();
        long leaseMs = o.lease().toMillis();
        byte[][] k = ScriptKey.of(KEYS, keys);
        byte[][] a = new byte[ARGS][];
        a[Arg.MAX_JOBS.ordinal()] = num(o.max());
        a[Arg.LEASE_MS.ordinal()] = num(leaseMs);
        a[Arg.LOOKAHEAD_MS.ordinal()] = num(o.lookahead().toMillis());
        a[Arg.MAX_EXPIRED.ordinal()] = num(o.recoverLimit());
        a[Arg.RECOVERY_BACKOFF_BASE_MS.ordinal()] = num(p.base().toMillis());
        a[Arg.RECOVERY_BACKOFF_CAP_MS.ordinal()] = num(p.cap().toMillis());
        a[Arg.RANDOM_SEED.ordinal()] = Args.seed();
        a[Arg.WAKE_CHANNEL.ordinal()] = keys.wakeChannel();
        a[Arg.MAX_STALLS.ordinal()] = num(p.maxStalls());
        a[Arg.WORKER.ordinal()] = o.worker() == null ? Args.EMPTY : utf8(o.worker());
        a[Arg.STAND_BY_MS.ordinal()] = num(o.standby().toMillis());
        a[Arg.MOST_RECORD_BYTES.ordinal()] = num(MAX_BYTES);
        int defaultMax = p.maxAttempts();
        return Reply.eval(redis, Script.CLAIM, k, a).thenApply(r -> {
            long now = Reply.longAt(r, Out.NOW);
            int n = (r.size() - HEAD) / WIDTH;
            List<ClaimedJob> jobs = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                byte[] head = (byte[]) Reply.item(r, HEAD, WIDTH, i, Job.ID);
                Record rec = Record.decode((byte[]) Reply.item(r, HEAD, WIDTH, i, Job.RECORD));
                String id;
                if (head.length > 0 && head[0] == 0) { // leased by an overlay: zero byte, overlay, id
                    int[] pos = {1};
                    rec = rec.withOverlay(head, pos);
                    id = new String(head, pos[0], head.length - pos[0], StandardCharsets.UTF_8);
                } else {
                    id = Reply.str(head);
                }
                jobs.add(new ClaimedJob(id, rec.payload(), rec.attempt(), rec.maxAttempts() > 0 ? rec.maxAttempts() : defaultMax,
                        rec.due(), rec.token(), now + leaseMs, rec.error(), partition, rec.name(), rec.stalls(), rec.timeoutMs(),
                        rec.traceparent(), rec.tracestate(), rec.group()));
            }
            return new ClaimBatch(jobs, now, Reply.longAt(r, Out.NEXT_DUE), Reply.longAt(r, Out.NEXT_EXPIRY),
                    (int) Reply.longAt(r, Out.RECOVERED), (int) Reply.longAt(r, Out.RECOVERED_DEAD),
                    Reply.longAt(r, Out.COVERED) == 1, Reply.longAt(r, Out.NOW_US), Reply.longAt(r, Out.PAUSED) == 1,
                    (int) Reply.longAt(r, Out.QUARANTINED), Reply.longAt(r, Out.LIMITED) == 1);
        });
    }
}
