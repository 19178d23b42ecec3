package dev.delayq.internal.worker;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * A condition to wait on with a deadline, signalled whenever the state it guards may have changed.
 * Signalling costs a volatile read when nobody waits (it is called once per finished job).
 */
final class Signal {
    private final Object monitor = new Object();
    private final AtomicInteger waiting = new AtomicInteger();
    private final Ticker ticker;

    Signal(Ticker ticker) {
        this.ticker = ticker;
    }

    void signal() {
        if (waiting.get() > 0) {
            synchronized (monitor) {
                monitor.notifyAll();
            }
        }
    }

    /** Waits until {@code done} holds or the deadline (a reading of the ticker) passes; returns whether it holds. */
    boolean awaitUntil(BooleanSupplier done, long deadlineNanos) throws InterruptedException {
        waiting.incrementAndGet();
        try {
            synchronized (monitor) {
                while (!done.getAsBoolean()) {
                    long left = deadlineNanos - ticker.nanos();
                    if (left <= 0) {
                        return false;
                    }
                    // The timeout only bounds a missed notify; progress is signalled.
                    TimeUnit.NANOSECONDS.timedWait(monitor, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
                }
                return true;
            }
        } finally {
            waiting.decrementAndGet();
        }
    }
}
