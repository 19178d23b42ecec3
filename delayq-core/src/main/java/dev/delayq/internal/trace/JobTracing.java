package dev.delayq.internal.trace;

import dev.delayq.Job;
import dev.delayq.JobContext;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Tracing as the queue and the worker see it, in JDK and delayq types only: {@link #OFF} unless the client was given an
 * OpenTelemetry ({@code DelayQ.Builder#openTelemetry}), then {@link OtelTracing}, the one class that uses OpenTelemetry.
 * Without it configured no OpenTelemetry class is loaded, so the API may be absent from the class path.
 */
public interface JobTracing {
    /** No spans: the enqueue and the handler run as they are. */
    JobTracing OFF = new JobTracing() {
    };

    /**
     * Runs {@code send} (the enqueue of {@code jobs} into {@code queue}) in a PRODUCER span whose context the jobs
     * without a trace context of their own carry; the span ends when the returned stage completes.
     */
    default <T> CompletableFuture<T> send(String queue, List<Job> jobs, Function<List<Job>, CompletableFuture<T>> send) {
        return send.apply(jobs);
    }

    /**
     * Starts the span of one attempt of {@code job}, current on this thread until {@link Attempt#end} (called on this
     * thread too).
     */
    default Attempt attempt(String queue, JobContext job) {
        return Attempt.NONE;
    }

    /** One attempt's span. */
    interface Attempt {
        /** No span. */
        Attempt NONE = (error, thrown) -> { };

        /**
         * Ends the span: {@code error} (the attempt's error summary) null when it succeeded; {@code thrown} what the
         * handler threw, when it threw.
         */
        void end(String error, Throwable thrown);
    }
}
