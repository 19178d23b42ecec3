package dev.delayq.internal.worker;

import dev.delayq.ClaimBatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * When the claim loop claims next from each partition of its queue. A claim that finds nothing due reports the
 * next due time (and the next lease expiry): the partition's next claim is planned for exactly then on the local
 * monotonic clock (a little later when another idle worker has promised to claim then, see {@code standby}), or
 * after {@code maxIdleSleep} when nothing is scheduled. A notice that an earlier job became the head moves the plan
 * forward. Partitions whose time has come are claimed from in turn (round-robin, so a backlog in one cannot starve
 * another).
 *
 * <p>Every wait is a distance from now saturated at {@link Nanos#HORIZON}, and plans are compared with now only by
 * difference: a due time in year 9999 is "later than any sleep", never an overflowed "already due".
 */
final class ClaimSchedule {
    private static final long NO_NOTICE = Long.MAX_VALUE;

    private final ServerClock[] clocks;
    private final WorkerConfig config;
    private final Ticker ticker;
    /** Per partition: the earliest head announced by a notice since its current claim was sent (Redis ms). */
    private final AtomicLongArray noticedHead;
    /** Per partition: when to claim from it next (ticker reading). Used by the claim loop's thread only. */
    private final long[] targetNanos;
    private int cursor;

    ClaimSchedule(ServerClock[] clocks, WorkerConfig config, Ticker ticker) {
        this.clocks = clocks;
        this.config = config;
        this.ticker = ticker;
        this.noticedHead = new AtomicLongArray(clocks.length);
        this.targetNanos = new long[clocks.length];
        long now = ticker.nanos();
        for (int p = 0; p < clocks.length; p++) {
            noticedHead.set(p, NO_NOTICE);
            targetNanos[p] = now;
        }
    }

    /** A notice: in partition {@code p}, an earlier job (due at {@code headMillis}, Redis clock) is now the head. */
    void onHead(int p, long headMillis) {
        noticedHead.accumulateAndGet(p, headMillis, Math::min);
    }

    /** Notices may have been missed (the subscription reconnected): claim from every partition now. */
    void onReconnect() {
        for (int p = 0; p < clocks.length; p++) {
            noticedHead.set(p, 0);
        }
    }

    /**
     * The partition to claim from now: the first whose time has come, starting after the one claimed last; -1 when
     * none has come yet (then {@link #untilNext} says how long to wait).
     */
    int next(long now) {
        for (int p = 0; p < clocks.length; p++) {
            long head = noticedHead.get(p);
            if (head != NO_NOTICE) {
                long until = clocks[p].known() ? clocks[p].nanosUntil(head, now) : 0;
                if (until < targetNanos[p] - now) {
                    targetNanos[p] = now + until;
                }
            }
        }
        for (int k = 0; k < clocks.length; k++) {
            int p = (cursor + k) % clocks.length;
            if (now - targetNanos[p] >= 0) {
                return p;
            }
        }
        return -1;
    }

    /** How long from {@code now} until the first partition's time comes. */
    long untilNext(long now) {
        long earliest = Nanos.HORIZON;
        for (long target : targetNanos) {
            earliest = Math.min(earliest, target - now);
        }
        return earliest;
    }

    /** A claim from partition {@code p} is being sent: notices from now on are news to it. */
    void claiming(int p) {
        cursor = (p + 1) % clocks.length;
        noticedHead.set(p, NO_NOTICE);
    }

    /** The claim from partition {@code p} failed: try it again in {@code millis}. */
    void retryIn(int p, long millis) {
        targetNanos[p] = ticker.nanos() + TimeUnit.MILLISECONDS.toNanos(millis);
    }

    /**
     * Plans the next claim from partition {@code p} from what its claim reported; true when the batch was full (more
     * jobs are due: claim again as soon as there is room).
     */
    boolean plan(int p, ClaimBatch b) {
        ServerClock clock = clocks[p];
        long now = ticker.nanos();
        if (b.nextDueMillis() == ClaimBatch.NOT_COMPUTED) {
            targetNanos[p] = now;
            return true;
        }
        long wait = jitter(Nanos.of(config.maxIdleSleep()), 0.1);
        if (b.limited() && b.nextDueMillis() >= 0) {
            // A rate limit refused the claim: come back exactly when its window frees a grant, not a lookahead sooner
            // (which would only be refused again), so a refused worker never claims faster than the limit.
            wait = Math.min(wait, clock.nanosUntil(b.nextDueMillis(), now));
        } else if (b.nextDueMillis() >= 0) {
            // Without lookahead, wake exactly at the due time. With it, wake that much earlier, but not sooner
            // than half a lookahead after this claim: the claim took everything due within the lookahead, so
            // waking at once would lease one job per call; waiting half of it leases half a window's worth.
            // When another idle worker has promised to claim then, stand by a little longer in case it cannot.
            long lookahead = Nanos.of(config.lookahead());
            long due = Math.max(clock.nanosUntil(b.nextDueMillis(), now) - lookahead, lookahead / 2);
            wait = Math.min(wait, b.covered() ? due + Nanos.of(config.standby()) : due);
        }
        if (b.nextLeaseExpiryMillis() >= 0) {
            // Wake to recover an expired lease, with a random delay so that a fleet of idle workers does not stampede.
            long expiry = clock.nanosUntil(b.nextLeaseExpiryMillis(), now);
            wait = Math.min(wait, expiry + jitter(Math.min(TimeUnit.SECONDS.toNanos(1), Nanos.of(config.lease()) / 10), 1.0));
        }
        long head = noticedHead.get(p);
        if (head != NO_NOTICE) {
            wait = Math.min(wait, clock.nanosUntil(head, now));
        }
        targetNanos[p] = now + Nanos.clamp(wait);
        return false;
    }

    private static long jitter(long nanos, double fraction) {
        long span = (long) (nanos * fraction);
        return nanos - span + (span > 0 ? ThreadLocalRandom.current().nextLong(span + 1) : 0);
    }
}
