package dev.delayq.internal.ops;

import static dev.delayq.internal.ops.Args.num;
import static dev.delayq.internal.ops.Args.utf8;

import dev.delayq.ClaimBatch;
import dev.delayq.ClaimOptions;
import dev.delayq.ClaimedJob;
import dev.delayq.RetryPolicy;
import dev.delayq.internal.Keys;
import dev.delayq.internal.Record;
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
    /** Elements of the reply before the first job: now, next due, next expiry, recovered, recovered dead, covered,
     * now us, paused, quarantined, limited. */
    private static final int HEADER = 10;

    private Claim() {
    }

    /** Claims from the queue (or partition {@code partition}) whose keys are {@code keys}. */
    public static CompletableFuture<ClaimBatch> call(RedisBackend redis, Keys keys, int partition, ClaimOptions o) {
        RetryPolicy p = o.retryPolicy();
        long leaseMs = o.lease().toMillis();
        byte[][] k = {keys.due(), keys.leases(), keys.jobs(), keys.meta(), keys.dead(), keys.dedupe(), keys.dedupeHolds(),
                keys.history(), keys.prio(), keys.events(), keys.rate(), keys.progress()};
        byte[][] a = {num(o.max()), num(leaseMs), num(o.lookahead().toMillis()), num(o.recoverLimit()),
                num(p.base().toMillis()), num(p.cap().toMillis()), Args.seed(), keys.wakeChannel(), num(p.maxStalls()),
                o.worker() == null ? Args.EMPTY : utf8(o.worker()), num(o.standby().toMillis()), num(MAX_BYTES)};
        int defaultMax = p.maxAttempts();
        return Reply.eval(redis, Script.CLAIM, k, a).thenApply(r -> {
            long now = Reply.asLong(r.get(0));
            int n = (r.size() - HEADER) / 2;
            List<ClaimedJob> jobs = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                byte[] head = (byte[]) r.get(HEADER + 2 * i);
                Record rec = Record.decode((byte[]) r.get(HEADER + 1 + 2 * i));
                String id;
                if (head.length > 0 && head[0] == 0) { // leased by an overlay: zero byte, overlay, id
                    int[] pos = {1};
                    rec = rec.withOverlay(head, pos);
                    id = new String(head, pos[0], head.length - pos[0], StandardCharsets.UTF_8);
                } else {
                    id = Reply.str(head);
                }
                jobs.add(new ClaimedJob(id, rec.payload(), rec.attempt(), rec.maxAttempts() > 0 ? rec.maxAttempts() : defaultMax,
                        rec.due(), rec.token(), now + leaseMs, rec.error(), partition, rec.name(), rec.stalls(), rec.timeoutMs()));
            }
            return new ClaimBatch(jobs, now, Reply.asLong(r.get(1)), Reply.asLong(r.get(2)), Reply.asInt(r.get(3)),
                    Reply.asInt(r.get(4)), Reply.asLong(r.get(5)) == 1, Reply.asLong(r.get(6)), Reply.asLong(r.get(7)) == 1,
                    Reply.asInt(r.get(8)), Reply.asLong(r.get(9)) == 1);
        });
    }
}
