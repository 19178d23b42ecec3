package dev.delayq.internal.worker;

import dev.delayq.WorkerMetrics;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Relays the notices of this queue's parents to their children waiting in other queues (docs/flows.md, "Parents in
 * another queue: how it stays exactly once"): a parent's end writes a notice into its own key set in the same script,
 * and this part, in every worker of the parent's queue, applies it to the child's key set and then acknowledges it. A
 * notice outlives the worker that was to relay it (a SIGKILL, a cut connection): the next pass of any worker applies
 * it, and applying one twice counts it once.
 *
 * <p>One pass per partition about every {@link #INTERVAL} (jittered, so a fleet does not call together): one small
 * script call that finds nothing on a queue without remote children; nothing per job. Its own thread and connection,
 * as {@link Maintenance}: a slow pass never delays claims, renewals or acknowledgements.
 */
final class NoticeRelay {
    private static final Logger LOG = LoggerFactory.getLogger(NoticeRelay.class);
    /** About how often each worker looks for notices: the most a remote child waits after its last parent ended. */
    static final Duration INTERVAL = Duration.ofSeconds(1);
    /** Reads of notices per pass at most (100 notices each). */
    static final int STEPS = 100;
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
    private ScheduledThreadPoolExecutor thread;
    private volatile boolean stopping;

    NoticeRelay(List<WorkerPartition> parts, Duration interval, WorkerMetrics metrics, String worker) {
        this.parts = parts;
        this.own = new WorkerPartition[parts.size()];
        this.interval = interval;
        this.metrics = metrics;
        this.worker = worker;
    }

    void start() {
        thread = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, worker + "-notices");
            t.setDaemon(true);
            return t;
        });
        schedule();
    }

    /** The next pass in 0.5 to 1.5 intervals. */
    private void schedule() {
        long every = interval.toMillis();
        long next = ThreadLocalRandom.current().nextLong(every / 2, every + every / 2 + 1);
        if (!stopping) {
            thread.schedule(this::runAndReschedule, next, TimeUnit.MILLISECONDS);
        }
    }

    private void runAndReschedule() {
        try {
            run();
        } finally {
            schedule();
        }
    }

    void stop() {
        stopping = true;
        if (thread != null) {
            thread.shutdownNow();
        }
    }

    /** One pass over every partition. */
    void run() {
        for (int p = 0; p < parts.size() && !stopping; p++) {
            relay(p);
        }
    }

    private void relay(int p) {
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
        } catch (Throwable e) {
            if (stopping) {
                return; // interrupted by shutdown: not an error
            }
            metrics.redisError(name, "notices");
            LOG.warn("worker {}: relaying the notices of queue {} failed, will retry next pass: {}", worker, name,
                    e.toString());
        }
    }
}
