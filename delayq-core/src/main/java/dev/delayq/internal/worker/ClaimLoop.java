package dev.delayq.internal.worker;

import dev.delayq.ClaimBatch;
import dev.delayq.ClaimOptions;
import dev.delayq.ClaimedJob;
import dev.delayq.WorkerMetrics;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's one claiming thread. It claims only as many jobs as it has free handler slots, then sleeps
 * until the next due time that the claim reported (timed on the local monotonic clock against Redis's
 * clock, not by a blocking command's timeout, which Redis checks only on its 10 Hz tick), until a slot
 * frees up, or until a pub/sub notice says an earlier job became the head of the due set; when to claim next
 * is the {@link ClaimSchedule}'s call.
 *
 * <p>Of several idle workers, only one (the claim script's "waker") wakes at a due time; the others stand
 * by a little longer and are woken at once by a notice if the waker fills up. When nothing is scheduled
 * it sleeps at most {@code maxIdleSleep}: a safety net should a notice be lost, kept long so that idle
 * workers cost Redis almost nothing.
 */
final class ClaimLoop implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(ClaimLoop.class);
    private static final long REFILL_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private final WorkerContext ctx;
    private final String queue;
    private final WorkerConfig config;
    private final ClaimGate gate;
    private final ServerClock[] clocks;
    private final Ticker ticker;
    private final Consumer<ClaimedJob> dispatch;
    private final WorkerMetrics metrics;
    private final OutageLog outage;
    private final ClaimOptions options;
    private final ClaimSchedule schedule;
    private final int refill;
    private volatile Thread thread;
    private volatile boolean stopping;
    private long shortSinceNanos;

    /** The claim loop of {@code ctx}'s worker, handing each job it leases to {@code dispatch}. */
    ClaimLoop(WorkerContext ctx, Consumer<ClaimedJob> dispatch) {
        this.ctx = ctx;
        this.queue = ctx.queue();
        this.config = ctx.config();
        this.gate = ctx.gate();
        this.clocks = ctx.clocks();
        this.ticker = ctx.ticker();
        this.dispatch = dispatch;
        this.metrics = ctx.metrics();
        this.outage = new OutageLog(LOG, "worker " + config.name() + " claiming from " + queue, ticker);
        this.options = new ClaimOptions(1, config.lease(), config.lookahead(), config.retryPolicy(), config.recoverLimit(),
                config.name(), config.standby());
        this.schedule = new ClaimSchedule(clocks, config, ticker);
        // After a full batch (a backlog is waiting) claim again once a quarter of a batch is free, not
        // after every single job: one script call then leases many jobs.
        this.refill = Math.max(1, Math.min(config.batch(), config.concurrency()) / 4);
    }

    void start(Thread t) {
        thread = t;
        gate.attach(t);
        t.start();
    }

    /** A notice: in partition {@code part}, an earlier job (due at {@code headMillis}, Redis clock) is now the head. */
    void onHead(int part, long headMillis) {
        schedule.onHead(part, headMillis);
        gate.wake();
    }

    /** The pub/sub connection was re-established: notices may have been missed, so claim now. */
    void onReconnect() {
        schedule.onReconnect();
        gate.wake();
    }

    void stop() {
        stopping = true;
        gate.wake();
    }

    /** Waits until the loop's thread has ended or the deadline passes; returns whether it has ended. */
    boolean joinUntil(long deadlineNanos) throws InterruptedException {
        Thread t = thread;
        if (t == null) {
            return true;
        }
        long left = deadlineNanos - ticker.nanos();
        if (left > 0) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        }
        return !t.isAlive();
    }

    @Override
    public void run() {
        while (!stopping) {
            try {
                step();
            } catch (Throwable e) { // the loop never dies: log with context, count, go on
                LOG.error("worker {}: unexpected error in the claim loop of queue {}", config.name(), queue, e);
                metrics.redisError(queue, "claim");
                pause(TimeUnit.SECONDS.toNanos(1));
            }
        }
    }

    private void step() {
        long now = ticker.nanos();
        int chosen = schedule.next(now);
        if (chosen < 0) {
            pause(schedule.untilNext(now));
            return;
        }
        int free = gate.free();
        if (free < gate.needed()) {
            if (free == 0) {
                shortSinceNanos = 0;
                waitForSlots(Nanos.of(config.maxIdleSleep()));
                return;
            }
            // Some slots are free but fewer than a refill: wait briefly for more, then take what there is,
            // so slow jobs never leave a slot idle while a backlog waits.
            if (shortSinceNanos == 0) {
                shortSinceNanos = now;
            }
            long waited = now - shortSinceNanos;
            if (waited < REFILL_WAIT_NANOS) {
                waitForSlots(REFILL_WAIT_NANOS - waited);
                return;
            }
        }
        shortSinceNanos = 0;
        int n = Math.min(config.batch(), free);
        if (!gate.take(n)) {
            return;
        }
        claim(chosen, n);
    }

    private void claim(int p, int n) {
        schedule.claiming(p);
        ServerClock clock = clocks[p];
        ClaimBatch batch;
        try {
            batch = ctx.part(p).claim(options.withMax(n)).thenApply(b -> {
                clock.sample(b.serverTimeMicros(), ticker.nanos());
                return b;
            }).join();
        } catch (RuntimeException e) {
            gate.giveBack(n);
            metrics.redisError(queue, "claim");
            schedule.retryIn(p, outage.failure(e));
            gate.need(1);
            return;
        }
        outage.success();
        gate.giveBack(n - batch.jobs().size());
        if (!batch.jobs().isEmpty()) {
            metrics.claimed(queue, batch.jobs().size());
        }
        if (batch.limited()) {
            metrics.limited(queue);
        }
        if (batch.recovered() + batch.recoveredDead() > 0) {
            metrics.recovered(queue, batch.recovered() + batch.recoveredDead());
            LOG.info("worker {}: recovered {} expired lease(s) in queue {} ({} to dead)", config.name(),
                    batch.recovered() + batch.recoveredDead(), queue, batch.recoveredDead());
        }
        for (ClaimedJob job : batch.jobs()) {
            dispatch.accept(job);
        }
        gate.need(schedule.plan(p, batch) ? refill : 1);
    }

    /** Parks until {@link ClaimGate#freed()} finds enough free slots, or for at most {@code nanos}. */
    private void waitForSlots(long nanos) {
        gate.waiting(true);
        try {
            if (gate.free() < gate.needed()) { // re-checked after announcing: no wake-up can be missed
                pause(nanos);
            }
        } finally {
            gate.waiting(false);
        }
    }

    private void pause(long nanos) {
        if (!stopping && nanos > 0) {
            LockSupport.parkNanos(this, nanos);
        }
    }
}
