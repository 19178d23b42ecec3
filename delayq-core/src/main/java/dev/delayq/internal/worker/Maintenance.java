package dev.delayq.internal.worker;

import dev.delayq.WorkerMetrics;
import dev.delayq.internal.queue.SingleQueue;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes done and dead jobs past their retention, periodically. Every worker of a queue runs this, but
 * the purge script takes a Redis lock for one period first, so one worker per queue does the work and
 * the others skip (the first run waits a random part of the period so a fleet started together spreads).
 */
final class Maintenance {
    private static final Logger LOG = LoggerFactory.getLogger(Maintenance.class);
    private static final int MAX_STEPS = 100;

    private final List<SingleQueue> parts;
    private final Duration interval;
    private final WorkerMetrics metrics;
    private final String worker;
    private ScheduledFuture<?> task;

    Maintenance(List<SingleQueue> parts, Duration interval, WorkerMetrics metrics, String worker) {
        this.parts = parts;
        this.interval = interval;
        this.metrics = metrics;
        this.worker = worker;
    }

    void start(ScheduledExecutorService timer) {
        if (interval.isZero()) {
            return;
        }
        long every = interval.toMillis();
        long first = ThreadLocalRandom.current().nextLong(every / 2, every + 1);
        task = timer.scheduleWithFixedDelay(this::run, first, every, TimeUnit.MILLISECONDS);
    }

    void stop() {
        if (task != null) {
            task.cancel(false);
        }
    }

    /** One purge pass over every partition. */
    void run() {
        for (SingleQueue queue : parts) {
            purge(queue);
        }
    }

    private void purge(SingleQueue queue) {
        try {
            long doneAge = queue.settings().doneRetention().toMillis();
            long deadAge = queue.settings().deadRetention().toMillis();
            long done = 0;
            long dead = 0;
            for (int i = 0; i < MAX_STEPS; i++) {
                // The lock is taken by the first step only; later steps of the same pass run under it.
                dev.delayq.internal.ops.Purge.Step step = queue.purgeStep(doneAge, deadAge, i == 0 ? interval.toMillis() : 0, worker);
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
                LOG.debug("worker {}: purged {} done and {} dead jobs from queue {}", worker, done, dead, queue.name());
            }
        } catch (Throwable e) {
            metrics.redisError(queue.name(), "purge");
            LOG.warn("worker {}: retention purge of queue {} failed, will retry next period: {}", worker, queue.name(),
                    e.toString());
        }
    }
}
