package dev.delayq.internal.worker;

import dev.delayq.WorkerMetrics;
import dev.delayq.internal.ops.Purge;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes done and dead jobs past their retention, periodically. Every worker of a queue runs this; a pass over a
 * partition holds the partition's purge lock (taken by its first step, renewed by each step, released by the step that
 * finds nothing more: purge.lua), so one worker purges it at a time and the others skip it (the first pass waits a
 * random part of the period so a fleet started together spreads).
 *
 * <p>A pass goes on until everything past retention is gone, however large the backlog: each step is bounded (at most
 * {@link Purge#STEP} jobs and 64 MB of records, so Redis serves other clients between steps), and there is no bound on
 * the steps of a pass. (A pass used to stop after 100 steps and keep the lock for the whole period: one partition
 * purged at most 100,000 jobs per period, and above ~333 completions a second at the default 5 minutes the kept jobs
 * grew without bound.)
 *
 * <p>It runs on its own thread and its own connection ({@link WorkerPartition#onOwnConnection()}):
 * a pass over a large backlog, or slow replies, takes as long as it takes without delaying lease renewals, claims
 * or acknowledgements, which never queue behind it on a thread or a connection.
 */
final class Maintenance {
    private static final Logger LOG = LoggerFactory.getLogger(Maintenance.class);
    /**
     * How long the purge lock lasts without a renewal: a step renews it, so this only bounds how long a worker that
     * died in a pass keeps the others out.
     */
    static final long LOCK_MS = 30_000;

    private final List<WorkerPartition> parts;
    private final WorkerPartition[] own;
    private final Duration interval;
    private final WorkerMetrics metrics;
    private final String worker;
    private final int step;
    private ScheduledThreadPoolExecutor thread;
    private volatile boolean stopping;

    Maintenance(List<WorkerPartition> parts, Duration interval, WorkerMetrics metrics, String worker) {
        this(parts, interval, metrics, worker, Purge.STEP);
    }

    /** With {@code step} jobs a purge call at most (tests use small steps to make many of them). */
    Maintenance(List<WorkerPartition> parts, Duration interval, WorkerMetrics metrics, String worker, int step) {
        this.parts = parts;
        this.own = new WorkerPartition[parts.size()];
        this.interval = interval;
        this.metrics = metrics;
        this.worker = worker;
        this.step = step;
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

    /** Stops at once: a pass under way is interrupted (its purge lock expires by itself, within {@link #LOCK_MS}). */
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
    private WorkerPartition queue(int p) {
        if (own[p] == null) {
            own[p] = parts.get(p).onOwnConnection();
        }
        return own[p];
    }

    private void purge(int p) {
        String name = parts.get(p).queue();
        try {
            WorkerPartition queue = queue(p);
            long done = 0;
            long dead = 0;
            long steps = 0;
            while (!stopping) {
                WorkerPartition.PurgeStep s = queue.purgeStep(step, LOCK_MS, worker);
                if (s.lockedForMs() > 0) {
                    return; // another worker is purging this partition
                }
                steps++;
                done += s.done();
                dead += s.dead();
                if (!s.more()) {
                    break;
                }
            }
            if (done + dead > 0) {
                LOG.debug("worker {}: purged {} done and {} dead jobs from queue {} in {} steps", worker, done, dead, name, steps);
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
