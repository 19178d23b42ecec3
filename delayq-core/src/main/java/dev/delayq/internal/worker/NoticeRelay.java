package dev.delayq.internal.worker;

import dev.delayq.WorkerMetrics;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Relays the notices of this queue's parents to their children waiting in other queues or partitions (docs/flows.md,
 * "Parents in another queue: how it stays exactly once"): a parent's end writes a notice into its own key set in the
 * same script, and this part, in every worker of the parent's queue, applies it to the child's key set and then
 * acknowledges it. A notice outlives the worker that was to relay it (a SIGKILL, a cut connection): the next pass of any
 * worker applies it, and applying one twice counts it once.
 *
 * <p>A pass runs when the worker starts (one small call per partition: what a worker killed before relaying left
 * behind), when the script that wrote notices says so on the wake channel ("n": {@link #trigger()}), when that
 * channel reconnects (a message may have been missed), {@link #RETRY} after a pass that put back notices whose child
 * did not exist yet, and every purge interval as a safety net (the first one after a random part of it, as
 * {@link Maintenance}'s): idle workers of a queue without remote children call nothing more. Its own thread and
 * connection: a slow pass never delays claims, renewals or acknowledgements.
 */
final class NoticeRelay {
    private static final Logger LOG = LoggerFactory.getLogger(NoticeRelay.class);
    /** Reads of notices per pass at most (100 notices each); a pass that reaches it runs again at once. */
    static final int STEPS = 100;
    /** When a pass that put notices back (their child not written yet) runs again: as long as they wait (5 s). */
    static final Duration RETRY = Duration.ofMillis(5_100);
    /**
     * How long a notice for a child that does not exist is kept (tried every 5 s): its enqueue linked it to the parent,
     * then wrote nothing on the child's queue (the client died between the two, or the id was taken).
     */
    static final long EXPIRY_MS = Duration.ofHours(24).toMillis();

    private final List<WorkerPartition> parts;
    private final WorkerPartition[] own;
    private final Duration interval;
    private final WorkerMetrics metrics;
    private final String worker;
    private final ScheduledThreadPoolExecutor thread;
    private final AtomicBoolean queued = new AtomicBoolean();
    private volatile boolean stopping;

    NoticeRelay(List<WorkerPartition> parts, Duration interval, WorkerMetrics metrics, String worker) {
        this.parts = parts;
        this.own = new WorkerPartition[parts.size()];
        this.interval = interval;
        this.metrics = metrics;
        this.worker = worker;
        // No thread until the first task: a trigger before start() only queues a pass.
        this.thread = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, worker + "-notices");
            t.setDaemon(true);
            return t;
        });
    }

    /** A first pass at once (notices a worker killed before relaying them left behind), then as the class says. */
    void start() {
        trigger();
        if (!interval.isZero()) {
            long every = interval.toMillis();
            long first = ThreadLocalRandom.current().nextLong(every / 2, every + 1);
            thread.scheduleWithFixedDelay(this::trigger, first, every, TimeUnit.MILLISECONDS);
        }
    }

    /** Asks for a pass; passes asked for while one waits to run are one pass. Never blocks. */
    void trigger() {
        if (stopping || !queued.compareAndSet(false, true)) {
            return;
        }
        try {
            thread.execute(() -> {
                queued.set(false);
                run();
            });
        } catch (RejectedExecutionException e) {
            queued.set(false); // stopped meanwhile
        }
    }

    void stop() {
        stopping = true;
        thread.shutdownNow();
    }

    /** One pass over every partition. */
    void run() {
        boolean again = false;
        boolean later = false;
        for (int p = 0; p < parts.size() && !stopping; p++) {
            WorkerPartition.Relayed r = relay(p);
            again |= r.more();
            later |= r.putBack() > 0;
        }
        if (stopping) {
            return;
        }
        if (again) {
            trigger();
        } else if (later) {
            thread.schedule(this::trigger, RETRY.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private WorkerPartition.Relayed relay(int p) {
        String name = parts.get(p).queue();
        try {
            if (own[p] == null) {
                own[p] = parts.get(p).onOwnConnection();
            }
            WorkerPartition.Relayed r = own[p].relayNotices(EXPIRY_MS);
            if (r.expired() > 0) {
                LOG.warn("worker {}: dropped {} notices of queue {} to children that never came to exist within {} h"
                        + " (their enqueue stopped after linking them: docs/flows.md)", worker, r.expired(), name,
                        EXPIRY_MS / 3_600_000);
            }
            if (r.applied() > 0) {
                LOG.debug("worker {}: relayed {} notices of queue {} to children in other queues", worker, r.applied(), name);
            }
            return r;
        } catch (Throwable e) {
            if (!stopping) {
                metrics.redisError(name, "notices");
                LOG.warn("worker {}: relaying the notices of queue {} failed, will retry: {}", worker, name, e.toString());
            }
            return new WorkerPartition.Relayed(0, 0, 1, false); // tried again with the notices put back
        }
    }
}
