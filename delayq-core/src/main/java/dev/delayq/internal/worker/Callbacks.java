package dev.delayq.internal.worker;

import dev.delayq.JobListener;
import dev.delayq.WorkerMetrics;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Isolates the user's callbacks (listener, metrics, executor) from the worker's loops: a callback that throws is
 * caught where it is called, logged once per kind (the first failure with its stack trace; later ones at debug
 * level), counted ({@link #failures()}, and {@link WorkerMetrics#callbackFailed} of the worker's metrics), and the
 * loop goes on. Without this, a listener that throws inside the acknowledger's reply handler would leave it busy
 * forever: nothing acknowledged again, in-flight growing, shutdown waiting out its whole grace period.
 */
final class Callbacks {
    private static final Logger LOG = LoggerFactory.getLogger(Callbacks.class);

    private final String worker;
    private final String queue;
    private final AtomicLong failures = new AtomicLong();
    private final Set<String> logged = ConcurrentHashMap.newKeySet();
    private volatile WorkerMetrics sink = WorkerMetrics.NONE;

    Callbacks(String worker, String queue) {
        this.worker = worker;
        this.queue = queue;
    }

    /** User callbacks that threw, of every kind. */
    long failures() {
        return failures.get();
    }

    /** A callback of {@code kind} (listener, metrics, executor) threw {@code e}. */
    void failed(String kind, Throwable e) {
        failures.incrementAndGet();
        if (logged.add(kind)) {
            LOG.warn("worker {}: a {} callback of queue {} threw; the worker goes on without it. Further failures of "
                    + "{} callbacks are counted (Worker.callbackFailures(), delayq.callbacks.failed) and logged at debug "
                    + "level only", worker, kind, queue, kind, e);
        } else if (LOG.isDebugEnabled()) {
            LOG.debug("worker {}: a {} callback of queue {} threw again: {}", worker, kind, queue, e.toString());
        }
        if (!kind.equals("metrics")) {
            try {
                sink.callbackFailed(queue, kind);
            } catch (Throwable again) {
                failed("metrics", again); // counted once more, never reported through the sink that threw
            }
        }
    }

    /** {@code listener}, isolated. */
    JobListener listener(JobListener listener) {
        return (job, outcome) -> {
            try {
                listener.onOutcome(job, outcome);
            } catch (Throwable e) {
                failed("listener", e);
            }
        };
    }

    /** {@code metrics}, isolated; failures of the other kinds are reported to it too. */
    GuardedMetrics metrics(WorkerMetrics metrics) {
        sink = metrics;
        return new GuardedMetrics(metrics, this);
    }

    /**
     * The worker's own view of {@code metrics} ({@link WorkerMetrics#forWorker}), asked for once as the worker starts;
     * {@code metrics} itself when that throws. {@code guarded} forwards to it from now on.
     */
    void useWorkerView(GuardedMetrics guarded, WorkerMetrics metrics, String worker) {
        WorkerMetrics view = metrics;
        try {
            WorkerMetrics v = metrics.forWorker(queue, worker);
            view = v != null ? v : metrics;
        } catch (Throwable e) {
            failed("metrics", e);
        }
        sink = view;
        guarded.forwardTo(view);
    }
}
