package dev.delayq.internal.worker;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The clock of job timeouts: runs an action when a handler passes its job's deadline. One thread, started when the
 * first run with a timeout starts (a worker whose jobs have none never starts it); a run that ends in time cancels
 * its deadline, which leaves the queue at once.
 */
final class Deadlines {
    private final String worker;
    private ScheduledThreadPoolExecutor thread;
    private boolean stopped;

    Deadlines(String worker) {
        this.worker = worker;
    }

    /** Runs {@code action} in {@code millis}, unless cancelled first; {@code null} once stopped. */
    synchronized ScheduledFuture<?> after(long millis, Runnable action) {
        if (stopped) {
            return null;
        }
        if (thread == null) {
            thread = new ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, worker + "-timeouts");
                t.setDaemon(true);
                return t;
            });
            thread.setRemoveOnCancelPolicy(true);
        }
        try {
            return thread.schedule(action, millis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            return null;
        }
    }

    /** Stops: deadlines not yet reached never fire. */
    synchronized void stop() {
        stopped = true;
        if (thread != null) {
            thread.shutdownNow();
        }
    }
}
