package dev.delayq.testkit;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * Holds the threads that pass it while it is shut, and counts them: {@link FaultProxy#hold()} shuts it in front of
 * the connections it accepts, so their clients wait in their handshake until {@link FaultProxy#release()}.
 */
final class Gate {
    private final Object lock = new Object();
    private final AtomicInteger waiting = new AtomicInteger();
    private boolean shut;

    /** Threads passing from now on wait until {@link #open()}. */
    void shut() {
        synchronized (lock) {
            shut = true;
        }
    }

    /** Lets waiting threads (and later ones) through. */
    void open() {
        synchronized (lock) {
            shut = false;
            lock.notifyAll();
        }
    }

    /** Threads waiting in {@link #pass(BooleanSupplier)} now. */
    int waiting() {
        return waiting.get();
    }

    /** Returns when the gate is open, when {@code stop} says so (checked every 100 ms), or on an interrupt (kept). */
    void pass(BooleanSupplier stop) {
        synchronized (lock) {
            waiting.incrementAndGet();
            try {
                while (shut && !stop.getAsBoolean()) {
                    lock.wait(100);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                waiting.decrementAndGet();
            }
        }
    }
}
