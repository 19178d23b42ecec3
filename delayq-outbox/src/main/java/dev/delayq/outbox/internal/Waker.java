package dev.delayq.outbox.internal;

import java.util.concurrent.ThreadLocalRandom;

/**
 * What the relay's loop waits on between rounds: a wake-up from a writer of this process (rows about to be committed),
 * from the database (a PostgreSQL notification: rows committed), the end of its poll interval, or {@link #close()}.
 * Waits carry a little jitter so that the relays of a fleet do not poll in step.
 */
public final class Waker {
    private boolean signaled;
    private boolean closed;
    private long expectUntilNanos;

    /** Rows were committed: the loop runs a round now. */
    public synchronized void signal() {
        signaled = true;
        notifyAll();
    }

    /**
     * Rows are being written and will be committed soon: the loop runs a round now, then looks again after short,
     * growing pauses for {@code windowNanos}, because the commit may come after the first look.
     */
    public synchronized void expect(long windowNanos) {
        expectUntilNanos = System.nanoTime() + windowNanos;
        signaled = true;
        notifyAll();
    }

    /** Whether a writer said rows are coming within its window. */
    public synchronized boolean expecting() {
        return System.nanoTime() - expectUntilNanos < 0;
    }

    /**
     * Waits up to {@code nanos} (plus or minus 10 %) for a signal or close.
     *
     * @return whether it was signaled (the signal is consumed)
     */
    public synchronized boolean await(long nanos) throws InterruptedException {
        long jitter = nanos / 10 == 0 ? 0 : ThreadLocalRandom.current().nextLong(-nanos / 10, nanos / 10);
        long deadline = System.nanoTime() + nanos + jitter;
        while (!signaled && !closed) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            wait(left / 1_000_000, (int) (left % 1_000_000));
        }
        boolean s = signaled;
        signaled = false;
        return s;
    }

    /** Sleeps {@code nanos} (a back-off after a failure): only {@link #close()} ends it early, not a signal. */
    public synchronized void pause(long nanos) throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        while (!closed) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            wait(left / 1_000_000, (int) (left % 1_000_000));
        }
    }

    /** Ends every wait now and for good. */
    public synchronized void close() {
        closed = true;
        notifyAll();
    }

    /** Whether {@link #close()} was called. */
    public synchronized boolean closed() {
        return closed;
    }
}
