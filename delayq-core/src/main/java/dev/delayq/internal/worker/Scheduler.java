package dev.delayq.internal.worker;

import java.util.concurrent.TimeUnit;

/**
 * Runs a task later, once: the one thing the acknowledger needs of a timer (its linger and its retries). In production a
 * {@link java.util.concurrent.ScheduledExecutorService}'s {@code schedule}; in tests, tasks run when the fake ticker
 * passes their time.
 */
@FunctionalInterface
interface Scheduler {
    /**
     * Runs {@code task} in {@code delay} {@code unit}s.
     *
     * @throws java.util.concurrent.RejectedExecutionException once the timer is shut down
     */
    void schedule(Runnable task, long delay, TimeUnit unit);
}
