package dev.delayq.internal.queue;

import dev.delayq.EnqueueResult;
import dev.delayq.ProducerMetrics;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports an enqueue call to the client's {@link ProducerMetrics}: the one place the producer is measured. With
 * {@link ProducerMetrics#NONE} it is not there at all (no clock read, no extra stage). A sink that throws is isolated:
 * the enqueue's result stands, the first failure is logged at WARN, later ones at DEBUG.
 */
final class EnqueueMeter {
    private static final Logger LOG = LoggerFactory.getLogger(EnqueueMeter.class);
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private EnqueueMeter() {
    }

    /** {@code call} (an enqueue of {@code jobs} jobs on {@code queue}), reported to {@code metrics} when it ends. */
    static CompletableFuture<List<EnqueueResult>> measure(ProducerMetrics metrics, String queue, int jobs,
                                                          Supplier<CompletableFuture<List<EnqueueResult>>> call) {
        if (metrics == ProducerMetrics.NONE) {
            return call.get();
        }
        long start = System.nanoTime();
        CompletableFuture<List<EnqueueResult>> f;
        try {
            f = call.get();
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        return f.whenComplete((results, error) -> report(metrics, queue, jobs, results, error, System.nanoTime() - start));
    }

    private static void report(ProducerMetrics metrics, String queue, int jobs, List<EnqueueResult> results,
                               Throwable error, long nanos) {
        try {
            if (error == null) {
                int created = 0;
                int replaced = 0;
                for (EnqueueResult r : results) {
                    created += r.created() ? 1 : 0;
                    replaced += r.replaced() ? 1 : 0;
                }
                metrics.enqueued(queue, created, results.size() - created - replaced, replaced, nanos);
                return;
            }
            Throwable cause = error;
            while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
                cause = cause.getCause();
            }
            if (!(cause instanceof IllegalArgumentException)) { // the caller's input: not a failure of the queue
                metrics.enqueueFailed(queue, jobs, cause, nanos);
            }
        } catch (Throwable e) {
            if (WARNED.compareAndSet(false, true)) {
                LOG.warn("the producer metrics threw while reporting an enqueue on queue {}; the enqueue is not "
                        + "affected. Further failures are logged at debug level only", queue, e);
            } else {
                LOG.debug("the producer metrics threw again (queue {}): {}", queue, e.toString());
            }
        }
    }
}
