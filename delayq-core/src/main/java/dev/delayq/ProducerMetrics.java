package dev.delayq;

/**
 * Receives the producer's measurements: what the enqueues of a client's queues did. The default does nothing and costs
 * nothing (the enqueue path does not even read the clock); {@code dev.delayq.micrometer.MicrometerProducerMetrics}
 * publishes them to a Micrometer registry (Micrometer is an optional dependency). Set with
 * {@link DelayQ.Builder#producerMetrics(ProducerMetrics)}.
 *
 * <p>One call per {@code enqueue} or {@code enqueueAll} call (of one job or of a list), when its result is known: on the
 * thread that completes it, which may be the Redis client's I/O thread, so a method must be quick and must not block.
 * A method that throws is isolated: the enqueue's result is unchanged, the failure is logged once (at WARN, later ones
 * at DEBUG).
 *
 * <p>An enqueue creates its job, finds it there and changes nothing (a duplicate), or in dedupe mode
 * {@link DedupeMode#DEBOUNCE} replaces the scheduled job holding its dedupe key ({@link EnqueueResult#replaced()}).
 */
public interface ProducerMetrics {
    /** Records nothing. */
    ProducerMetrics NONE = new ProducerMetrics() {
    };

    /**
     * An enqueue call on {@code queue} returned: {@code created} jobs created, {@code duplicates} found there already
     * (same id or dedupe key; nothing changed), in {@code nanos} from the call to its reply.
     */
    default void enqueued(String queue, int created, int duplicates, long nanos) {
    }

    /**
     * As {@link #enqueued(String, int, int, long)}, with {@code replaced} jobs that replaced the scheduled job holding
     * their dedupe key (debounce; neither created nor duplicates). The one the enqueue path calls; the default reports
     * to the four-argument form, so an implementation written before debounce keeps its figures.
     */
    default void enqueued(String queue, int created, int duplicates, int replaced, long nanos) {
        enqueued(queue, created, duplicates, nanos);
    }

    /**
     * An enqueue call of {@code jobs} jobs on {@code queue} failed with {@code error} after {@code nanos}: Redis
     * unreachable, timed out or refusing ({@link DelayQException} and its kind). Input the call refused
     * ({@link IllegalArgumentException}: the caller's mistake, not the queue's) is not reported. Whether a failed call
     * created its jobs is not known (a reply lost in a time-out): enqueue again with the same ids to find out.
     */
    default void enqueueFailed(String queue, int jobs, Throwable error, long nanos) {
    }
}
