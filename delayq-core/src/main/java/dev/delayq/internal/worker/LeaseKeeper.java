package dev.delayq.internal.worker;

import dev.delayq.Ack;
import dev.delayq.Lease;
import dev.delayq.RenewResult;
import dev.delayq.WorkerMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews the lease of every job the worker holds, in one script call per partition per tick (a third of the lease
 * length), so a job that runs for many lease lengths is never recovered while it runs. It has a thread of its own,
 * so nothing else the worker does (a long retention purge, a busy acknowledger) can delay a renewal. A refused renewal
 * means the job was recovered and may run elsewhere: its context is marked lost so the handler can stop,
 * and its completion will be refused. When Redis cannot be reached, a job whose lease has passed by the
 * estimated Redis clock is marked lost too.
 */
final class LeaseKeeper {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseKeeper.class);

    private final WorkerContext ctx;
    private final String queue;
    private final InFlight inFlight;
    private final ServerClock[] clocks;
    private final Duration lease;
    private final WorkerMetrics metrics;
    private final String worker;
    private final OutageLog outage;
    private final AtomicBoolean busy = new AtomicBoolean();
    private ScheduledThreadPoolExecutor thread;

    LeaseKeeper(WorkerContext ctx) {
        this.ctx = ctx;
        this.queue = ctx.queue();
        this.inFlight = ctx.inFlight();
        this.clocks = ctx.clocks();
        this.lease = ctx.config().lease();
        this.metrics = ctx.metrics();
        this.worker = ctx.worker();
        this.outage = new OutageLog(LOG, "worker " + worker + " renewing leases in " + queue, ctx.ticker());
    }

    /** How often leases of length {@code lease} are renewed, in ms: a third of it (two renewals may fail before one expires). */
    static long periodMillis(Duration lease) {
        return Math.max(10, lease.toMillis() / 3);
    }

    /** Starts renewing on a thread of its own: renewal never waits behind another part of the worker. */
    void start() {
        thread = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, worker + "-leases");
            t.setDaemon(true);
            return t;
        });
        long every = periodMillis(lease);
        thread.scheduleWithFixedDelay(this::tick, every, every, TimeUnit.MILLISECONDS);
    }

    void stop() {
        if (thread != null) {
            thread.shutdownNow();
        }
    }

    /** One renewal of every held lease (what the thread runs each period). */
    void tick() {
        try {
            renew();
        } catch (Throwable e) { // a scheduled task that throws stops forever: never let it
            busy.set(false);
            LOG.error("worker {}: unexpected error renewing leases in queue {}", worker, queue, e);
        }
    }

    private void renew() {
        if (!busy.compareAndSet(false, true)) {
            return; // the previous renewal has not answered yet
        }
        List<Running> held = inFlight.held();
        if (held.isEmpty()) {
            busy.set(false);
            return;
        }
        int parts = ctx.parts().size();
        List<List<Running>> byPart = new ArrayList<>(parts);
        if (parts == 1) {
            byPart.add(held);
        } else {
            for (int p = 0; p < parts; p++) {
                byPart.add(new ArrayList<>());
            }
            held.forEach(r -> byPart.get(r.job.partition()).add(r));
        }
        List<CompletableFuture<Void>> calls = new ArrayList<>(parts);
        for (int p = 0; p < parts; p++) {
            List<Running> jobs = byPart.get(p);
            if (!jobs.isEmpty()) {
                calls.add(renew(ctx.part(p), jobs));
            }
        }
        CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0])).whenComplete((v, e) -> busy.set(false));
    }

    /** Renews the leases of {@code held}, all of partition {@code part}; completes when their answer is applied. */
    private CompletableFuture<Void> renew(WorkerPartition part, List<Running> held) {
        List<Lease> leases = new ArrayList<>(held.size());
        held.forEach(r -> leases.add(r.lease()));
        CompletableFuture<RenewResult> call;
        try {
            call = part.renew(leases, lease);
        } catch (Throwable e) { // async calls fail their future; this only guards against a stuck "busy"
            call = CompletableFuture.failedFuture(e);
        }
        return call.handle((res, e) -> {
            if (e != null) {
                metrics.redisError(queue, "renew");
                outage.failure(e);
                for (Running r : held) {
                    if (!r.finished && !r.acking && clocks[r.job.partition()].nowMillis() > r.leaseUntilMillis) {
                        lose(r, "not renewed before it expired (Redis did not answer)");
                    }
                }
                return null;
            }
            outage.success();
            apply(held, res);
            return null;
        });
    }

    private void apply(List<Running> held, RenewResult res) {
        for (int i = 0; i < held.size(); i++) {
            Running r = held.get(i);
            if (res.acks().get(i) == Ack.OK) {
                r.leaseUntilMillis = res.leaseUntilMillis();
            } else if (!r.finished && !r.acking) {
                // A finished job's acknowledgement may have landed first; only a running one has lost its lease.
                lose(r, "renewal refused (" + res.acks().get(i) + ")");
            }
        }
    }

    private void lose(Running r, String why) {
        if (!r.lost) {
            r.markLost();
            metrics.leaseLost(queue);
            JobLog.leaseLost(r, why, null); // the job may run elsewhere; its handler should stop (ctx.leaseLost())
        }
    }
}
