package dev.delayq.internal.worker;

import dev.delayq.WorkerMetrics;
import dev.delayq.internal.ops.Purge;
import dev.delayq.internal.queue.SingleQueue;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes done and dead jobs past their retention, periodically. Every worker of a queue runs this, but
 * the purge script takes a Redis lock for one period first, so one worker per queue does the work and
 * the others skip (the first run waits a random part of the period so a fleet started together spreads).
 *
 * <p>It runs on its own thread and its own connection ({@link dev.delayq.internal.redis.RedisBackend#sibling()}):
 * a pass over a large backlog, or slow replies, takes as long as it takes without delaying lease renewals, claims
 * or acknowledgements, which never queue behind it on a thread or a connection.
 */
final class Maintenance {
    private static final Logger LOG = LoggerFactory.getLogger(Maintenance.class);
    private static final int MAX_STEPS = 100;
    /** The purge lock lasts one period, up to a year (a longer period just lets another worker in after a year). */
    private static final long MAX_LOCK_MS = Duration.ofDays(365).toMillis();

    private final List<SingleQueue> parts;
    private final SingleQueue[] own;
    private final Duration interval;
    private final WorkerMetrics metrics;
    private final String worker;
    private ScheduledThreadPoolExecutor thread;
    private volatile boolean stopping;

    Maintenance(List<SingleQueue> parts, Duration interval, WorkerMetrics metrics, String worker) {
        this.parts = parts;
        this.own = new SingleQueue[parts.size()];
        this.interval = interval;
        this.metrics = metrics;
        this.worker = worker;
    }

    void start() {
        if (interval.isZero()) {
            return;
        }
        thread = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, worker + "-maintenance");
            t.setDaemon(true);
            return t;
        });
        long every = interval.toMillis();
        long first = ThreadLocalRandom.current().nextLong(every / 2, every + 1);
        thread.scheduleWithFixedDelay(this::run, first, every, TimeUnit.MILLISECONDS);
    }

    /** Stops at once: a pass under way is interrupted (the purge lock expires by itself). */
    void stop() {
        stopping = true;
        if (thread != null) {
            thread.shutdownNow();
        }
    }

    /** One purge pass over every partition. */
    void run() {
        for (int p = 0; p < parts.size() && !stopping; p++) {
            purge(p);
        }
    }

    /** Partition {@code p} on the maintenance connection, opened on first use (so a failure is one pass's failure). */
    private SingleQueue queue(int p) {
        if (own[p] == null) {
            SingleQueue part = parts.get(p);
            own[p] = part.on(part.backend().sibling());
        }
        return own[p];
    }

    private void purge(int p) {
        String name = parts.get(p).name();
        try {
            SingleQueue queue = queue(p);
            long doneAge = queue.settings().doneRetention().toMillis();
            long deadAge = queue.settings().deadRetention().toMillis();
            long done = 0;
            long dead = 0;
            for (int i = 0; i < MAX_STEPS && !stopping; i++) {
                // The lock is taken by the first step only; later steps of the same pass run under it.
                Purge.Step step = queue.purgeStep(doneAge, deadAge, i == 0 ? Math.min(interval.toMillis(), MAX_LOCK_MS) : 0, worker);
                if (step.lockedForMs() > 0) {
                    return; // another worker purges this period
                }
                done += step.done();
                dead += step.dead();
                if (!step.more()) {
                    break;
                }
            }
            if (done + dead > 0) {
                LOG.debug("worker {}: purged {} done and {} dead jobs from queue {}", worker, done, dead, name);
            }
        } catch (Throwable e) {
            if (stopping) {
                return; // interrupted by shutdown: not an error
            }
            metrics.redisError(name, "purge");
            LOG.warn("worker {}: retention purge of queue {} failed, will retry next period: {}", worker, name, e.toString());
        }
    }
}
