package dev.delayq.test;

import dev.delayq.DelayQ;
import dev.delayq.JobInfo;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.QueueStats;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * Helpers for testing an application's jobs against a real Redis: run the jobs of a queue now instead of at their due
 * time (a test of a 30-minute time-out does not wait 30 minutes) and wait until the application's workers have
 * drained a queue.
 *
 * <pre>{@code
 * orders.place();                               // enqueues a payment time-out due in 30 minutes
 * jobs.runDueNow("orders");                     // due now: the application's worker runs it
 * jobs.awaitDrained("orders", Duration.ofSeconds(10));
 * assertThat(orders.status(id)).isEqualTo(CANCELLED);
 * }</pre>
 *
 * <p>It moves jobs and reads counts with delayq's own operations, on the prefix of the {@link DelayQ} it is given
 * (the application's, under Spring); the jobs are run by the application's workers, never by this class.
 */
public final class DelayqTestJobs {
    /** Longest pause between two reads of a queue's counts while waiting. */
    private static final long MAX_POLL_MILLIS = 50;

    private final Supplier<DelayQ> delayQ;

    /** Helpers on {@code delayQ}. */
    public DelayqTestJobs(DelayQ delayQ) {
        this(() -> delayQ);
        if (delayQ == null) {
            throw new IllegalArgumentException("delayQ must not be null");
        }
    }

    /** Helpers on the client {@code delayQ} gives when they are used (e.g. an application context's bean). */
    public DelayqTestJobs(Supplier<DelayQ> delayQ) {
        if (delayQ == null) {
            throw new IllegalArgumentException("delayQ must not be null");
        }
        this.delayQ = delayQ;
    }

    private JobQueue queue(String name) {
        return delayQ.get().queue(name);
    }

    /**
     * Makes every job scheduled on {@code queue} due now (on Redis's clock), retries waiting for their backoff
     * included: the application's workers run them at once.
     *
     * @return how many jobs were moved
     */
    public int runDueNow(String queue) {
        JobQueue q = queue(queue);
        List<String> ids = q.inspector().stream(JobState.SCHEDULED).map(JobInfo::id).toList();
        int moved = 0;
        for (String id : ids) {
            if (q.reschedule(id, Duration.ZERO).changed()) {
                moved++; // one claimed or cancelled meanwhile is not scheduled any more: nothing to move
            }
        }
        return moved;
    }

    /**
     * Makes the scheduled job {@code id} of {@code queue} due now.
     *
     * @return whether it was scheduled (and is now due)
     */
    public boolean runDueNow(String queue, String id) {
        return queue(queue).reschedule(id, Duration.ZERO).changed();
    }

    /**
     * Waits until {@code queue} has no job scheduled, none running and none waiting for its parents (every job done or
     * dead), checking its counts every few milliseconds.
     *
     * @return the queue's counts when drained
     * @throws AssertionError with the counts, when it is not drained within {@code timeout}
     */
    public QueueStats awaitDrained(String queue, Duration timeout) {
        return await(queue, timeout, false);
    }

    /**
     * Runs every job of {@code queue} now, again and again, until the queue has no job scheduled, none running and
     * none waiting for its parents: jobs the handlers enqueue, children released and retries after a failure run at
     * once too.
     *
     * @return the queue's counts when drained
     * @throws AssertionError with the counts, when it is not drained within {@code timeout}
     */
    public QueueStats drain(String queue, Duration timeout) {
        return await(queue, timeout, true);
    }

    /** The counts of {@code queue} now. */
    public QueueStats stats(String queue) {
        return queue(queue).inspector().stats();
    }

    private QueueStats await(String queue, Duration timeout, boolean runDue) {
        if (timeout == null || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout is " + timeout + ": it must be zero or positive");
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        long pause = 1;
        while (true) {
            if (runDue) {
                runDueNow(queue);
            }
            QueueStats s = stats(queue);
            if (s.scheduled() == 0 && s.processing() == 0 && s.waiting() == 0) {
                return s;
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new AssertionError("queue '" + queue + "' was not drained within " + timeout + ": "
                        + s.scheduled() + " scheduled, " + s.processing() + " processing, " + s.waiting()
                        + " waiting for their parents, " + s.done() + " done, " + s.dead() + " dead"
                        + (s.paused() ? " (the queue is paused)" : ""));
            }
            // The counts live in Redis, changed by other processes' workers too: nothing here can be woken by them.
            sleep(pause);
            pause = Math.min(MAX_POLL_MILLIS, pause * 2);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a queue to drain", e);
        }
    }
}
