package dev.delayq.internal.worker;

import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.LockSupport;

/**
 * The claim loop's handler slots and its wake-up: what the other parts do to the claim loop goes through here, so the
 * gate exists before the loop and the dispatcher, and neither needs the other to be built first. A handler that
 * finishes gives its slot back ({@link #freed()}); the loop is woken only when it waits for slots and enough are free
 * now (a wake-up per finished job would cost a context switch each during a burst).
 */
final class ClaimGate {
    private final Semaphore slots;
    /** The claim loop's thread, once started. */
    private volatile Thread loop;
    /** Free slots the loop waits for before claiming again (read by handler threads). */
    private volatile int needed = 1;
    /** The loop is parked waiting for free slots, not for a due time. */
    private volatile boolean waiting;

    ClaimGate(int slots) {
        this.slots = new Semaphore(slots);
    }

    /** The claim loop runs on {@code t}. */
    void attach(Thread t) {
        loop = t;
    }

    /** Wakes the claim loop: a notice arrived, jobs were handed back, or it must stop. */
    void wake() {
        Thread t = loop;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** A handler freed its slot. */
    void freed() {
        slots.release();
        if (waiting && slots.availablePermits() >= needed) {
            wake();
        }
    }

    /** Free slots now. */
    int free() {
        return slots.availablePermits();
    }

    /** Takes {@code n} slots for a claim; false when fewer are free. */
    boolean take(int n) {
        return slots.tryAcquire(n);
    }

    /** Gives back {@code n} slots taken for a claim that leased fewer jobs (no wake-up: the loop itself gives). */
    void giveBack(int n) {
        slots.release(n);
    }

    int needed() {
        return needed;
    }

    /** From now on the loop waits for {@code n} free slots before claiming again. */
    void need(int n) {
        needed = n;
    }

    /** The loop waits for slots (true) or no longer does (false); set before re-checking, so no wake-up is missed. */
    void waiting(boolean w) {
        waiting = w;
    }
}
