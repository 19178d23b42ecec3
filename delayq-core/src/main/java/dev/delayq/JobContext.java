package dev.delayq;

import java.time.Instant;

/** The job a handler runs, and the state of its lease. */
public interface JobContext {
    /** The queue's name. */
    String queue();

    /** The job id. */
    String id();

    /** The job's name, or {@code null} when it was enqueued without one. */
    String name();

    /** The payload bytes (the handler's own copy). */
    byte[] payload();

    /** The payload decoded as UTF-8. */
    String payloadUtf8();

    /** The payload decoded by {@code codec}. */
    default <T> T payload(PayloadCodec<T> codec) {
        return codec.decode(payload());
    }

    /** How often a lease of this job expired before (a worker died, or the reply of a claim was lost). */
    int stalls();

    /** This attempt's number, from 1. */
    int attempt();

    /** Attempts allowed in all. */
    int maxAttempts();

    /** When the job became due (Redis clock). */
    Instant dueAt();

    /** The fencing token of this attempt's lease (monotonic per queue). */
    long token();

    /** The previous attempt's error summary, or {@code null}. */
    String lastError();

    /**
     * The W3C traceparent the job carries from its producer ({@link Job#traceparent()}), or {@code null} when it was
     * enqueued without one. With OpenTelemetry configured on the worker, the attempt's own span (a child of this
     * context) is the current span while the handler runs: see docs/tracing.md.
     */
    default String traceparent() {
        return null;
    }

    /** The W3C tracestate that goes with {@link #traceparent()}, or {@code null}. */
    default String tracestate() {
        return null;
    }

    /** The job's group ({@link Job#group()}), or {@code null} when it has none. */
    default String group() {
        return null;
    }

    /**
     * {@code true} once the lease is lost: a renewal was refused (the job was recovered and may run
     * elsewhere), the worker handed the job back at shutdown, renewals failed until the lease expired, or the
     * run passed its timeout (its attempt was failed). A handler that sees it should stop; its outcome will be
     * refused or ignored.
     */
    boolean leaseLost();

    /**
     * Reports the job's progress as a percentage (0 to 100), shown by {@code JobQueue.get}, {@code delayq job} and the
     * dashboard while it runs (and in the event stream). Does not wait: the returned stage completes with
     * {@link Ack#OK}, or {@link Ack#STALE} once the lease is lost.
     *
     * @throws IllegalArgumentException when {@code percent} is outside 0 to 100
     */
    java.util.concurrent.CompletableFuture<Ack> progress(int percent);

    /** Reports the job's progress as a small text (e.g. JSON {@code {"rows":1200}}), at most 4 KiB; see {@link #progress(int)}. */
    java.util.concurrent.CompletableFuture<Ack> progress(String progress);

    /**
     * Leaves {@code result} with the job when this attempt completes (the handler returns normally): kept with the done
     * job for the done retention, shown by {@code QueueInspector.get} ({@link JobInfo#result()}), {@code delayq job} and
     * the job's children ({@link #parentResults()}). The last call of the attempt wins; {@code null} takes an earlier one
     * back. An attempt that fails leaves nothing, and a worker without done retention keeps no result (docs/flows.md).
     *
     * @throws IllegalArgumentException when it is longer than {@link Bounds#MAX_RESULT_BYTES} (64 KiB)
     */
    default void result(byte[] result) {
        throw new UnsupportedOperationException("this JobContext keeps no result");
    }

    /**
     * Leaves {@code result}, as UTF-8, with the job when this attempt completes: see {@link #result(byte[])}.
     *
     * @throws IllegalArgumentException when its UTF-8 form is longer than {@link Bounds#MAX_RESULT_BYTES} (64 KiB)
     */
    default void result(String result) {
        result(result == null ? null : result.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /**
     * Leaves {@code value}, encoded by {@code codec} (e.g. JSON), with the job when this attempt completes: see
     * {@link #result(byte[])}.
     *
     * @throws IllegalArgumentException when its encoding is longer than {@link Bounds#MAX_RESULT_BYTES} (64 KiB)
     */
    default <T> void result(PayloadCodec<T> codec, T value) {
        result(value == null ? null : codec.encode(value));
    }

    /**
     * The results of this job's parents ({@link Job.Builder#after}) that are still kept: parent id to the bytes its
     * handler left, in the order the job named its parents; a parent that left none, or whose done job is no longer kept,
     * is absent. Empty for a job without parents. Read from Redis on the first call of the attempt (one script call), then
     * the same map; the arrays are this attempt's own.
     *
     * @throws DelayQException when Redis cannot be read
     */
    default java.util.Map<String, byte[]> parentResults() {
        return java.util.Map.of();
    }

    /**
     * Throws when {@link #leaseLost()}; call it at safe points of long work.
     *
     * @throws LeaseLostException when the lease is lost
     */
    default void ensureLease() {
        if (leaseLost()) {
            throw new LeaseLostException(id(), token());
        }
    }
}
