package dev.delayq;

/**
 * Runs one job. Return normally to complete it; throw to fail the attempt (retried with the worker's
 * backoff while attempts remain); throw {@link NonRetryableException} to send it straight to dead; throw
 * {@link RetryLaterException} to choose the retry delay.
 *
 * <p>A job with a timeout ({@code Job.Builder.timeout}, or the worker's {@code jobTimeout}) has its handler's thread
 * interrupted at the deadline, and the attempt fails with error {@code timed out after <d>}: a handler should let
 * {@link InterruptedException} (and interrupted I/O) end it. One that ignores the interrupt keeps its thread until it
 * returns, but the job is no longer its own and what it returns is ignored.
 *
 * <p>Delivery is at-least-once: a job whose worker dies mid-run runs again after its lease expires, so
 * side effects should be idempotent (key them by {@link JobContext#id()}; the fencing token
 * {@link JobContext#token()} orders attempts).
 */
@FunctionalInterface
public interface JobHandler {
    /**
     * Runs the job.
     *
     * @param ctx the job and its lease
     * @throws Exception to fail this attempt
     */
    void handle(JobContext ctx) throws Exception;
}
