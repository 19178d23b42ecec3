package dev.delayq.spring;

/**
 * Where {@link DelayqTemplate} reports what it enqueued, per queue: with Micrometer, the counters
 * {@code delayq.jobs.enqueued}, {@code delayq.jobs.duplicates} and {@code delayq.enqueue.errors} (tag {@code queue},
 * and {@code error}, the exception's simple class name) beside the worker's meters.
 */
public interface DelayqProducerMetrics {
    /** Reports nothing. */
    DelayqProducerMetrics NONE = new DelayqProducerMetrics() {
        @Override
        public void enqueued(String queue, boolean created) {
        }

        @Override
        public void enqueueFailed(String queue, RuntimeException error) {
        }
    };

    /** A job was enqueued on {@code queue} ({@code created}), or was a duplicate of one there. */
    void enqueued(String queue, boolean created);

    /** Enqueueing on {@code queue} failed with {@code error} (the job's input was valid; Redis failed or refused). */
    void enqueueFailed(String queue, RuntimeException error);
}
