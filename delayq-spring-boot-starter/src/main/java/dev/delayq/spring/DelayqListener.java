package dev.delayq.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.core.annotation.AliasFor;

/**
 * Runs the annotated bean method for every due job of a queue, as a delayq worker started when the application
 * context is ready and stopped gracefully before the client closes.
 *
 * <pre>{@code
 * @DelayqListener(queue = "orders", concurrency = "${orders.workers:4}")
 * void onTimeout(OrderTimeout timeout, JobContext ctx) {
 *     orders.cancelIfUnpaid(timeout.orderId());
 * }
 * }</pre>
 *
 * <p>Parameters, in any order: {@link dev.delayq.JobContext} (id, attempt, lease), and at most one payload
 * parameter: {@code String} (UTF-8), {@code byte[]}, or any other type, read from JSON with the application's
 * {@code ObjectMapper} (a payload that is not valid JSON of that type sends the job to dead at once), and a
 * {@code Map<String, T>} marked {@link DelayqParentResults}: the results of the job's parents (docs/flows.md). Returning
 * normally completes the job; a value returned (not {@code null}) is the job's result, written as a payload is (at most
 * 64 KiB: a longer one fails the attempt), kept with the done job and given to its children; throwing fails the
 * attempt, retried with backoff while attempts remain;
 * {@link dev.delayq.NonRetryableException} sends it to dead at once; {@link dev.delayq.RetryLaterException} picks
 * the retry delay.
 *
 * <p>Every attribute is a string so that it can hold {@code ${...}} placeholders; left empty it takes its
 * {@code delayq.worker.*} or {@code delayq.retry.*} default. Durations read as {@code 30s}, {@code 500ms} or
 * {@code PT30S}.
 */
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DelayqListener {
    /** The queue (alias of {@link #queue()}). */
    @AliasFor("queue")
    String value() default "";

    /**
     * The queue whose jobs this method runs: one method per queue and job {@link #name()} in an application (a second
     * one fails the start, naming both; they would take the jobs from each other). The listeners of one queue share
     * its worker: an attribute set by two of them must have one value.
     */
    @AliasFor("value")
    String queue() default "";

    /**
     * The job name this method runs: only the queue's jobs of that name (a handler per job name on one queue, e.g.
     * {@code email} and {@code sms}). Empty: every job of the queue that no other listener names; a job whose name
     * has no listener of a queue without such a catch-all listener goes to dead ("no handler for job name").
     */
    String name() default "";

    /**
     * Longest run of a job (default {@code delayq.queues.<queue>.job-timeout}, else none): at the deadline the
     * handler's thread is interrupted and the attempt fails with "timed out after ...".
     */
    String jobTimeout() default "";

    /** Most handlers running at once (default {@code delayq.worker.concurrency}). */
    String concurrency() default "";

    /** A job's lease, renewed while it runs (default {@code delayq.worker.lease-duration}). */
    String leaseDuration() default "";

    /** Attempts in all, the first included (default {@code delayq.retry.max-attempts}). */
    String maxAttempts() default "";

    /** Shortest delay before a retry (default {@code delayq.retry.base}). */
    String backoff() default "";

    /** Longest delay before a retry (default {@code delayq.retry.cap}). */
    String backoffCap() default "";

    /** Lease jobs due within this window ahead of time (default {@code delayq.worker.lookahead}). */
    String lookahead() default "";

    /** How long running handlers may finish on shutdown (default {@code delayq.worker.shutdown-grace}). */
    String shutdownGrace() default "";
}
