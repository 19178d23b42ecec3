package dev.delayq.internal.worker;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's own handler threads, when the user gives no executor. Jobs wait in one FIFO queue; a thread that
 * finishes a job takes the next one without parking, and a new job wakes at most one parked thread at a time:
 * a thread that takes a job and sees more waiting wakes the next one before running it. So a burst of fast jobs runs
 * on the few threads it keeps busy, with a few wake-ups per claim instead of one hand-off per job, while a burst of
 * slow ones still gets a thread per job within one wake-up latency per job (the chain of wake-ups runs ahead of the
 * handlers, never behind them).
 *
 * <p>Threads are created on demand and kept: {@code core} of them while idle (the worker's concurrency; its slots,
 * not this pool, bound how many handlers run), more only while a handler that ignored its timeout's interrupt holds
 * its thread; those extra threads end after {@code keepAlive} idle. {@link #shutdownNow()} interrupts every thread
 * and refuses new jobs.
 */
final class HandlerPool implements Executor {
    private static final Logger LOG = LoggerFactory.getLogger(HandlerPool.class);
    private static final int ACTIVE = 0;
    private static final int IDLE = 1;
    private static final int WOKEN = 2;

    private final ConcurrentLinkedQueue<Runnable> ready = new ConcurrentLinkedQueue<>();
    /** Parked threads, the most recently parked first (its caches are warmest). */
    private final ConcurrentLinkedDeque<Handler> idle = new ConcurrentLinkedDeque<>();
    private final Set<Handler> all = ConcurrentHashMap.newKeySet();
    /** Threads woken or started that have not yet looked at the queue: while one is on its way, no other is woken. */
    private final AtomicInteger waking = new AtomicInteger();
    private final AtomicInteger threads = new AtomicInteger();
    /** Threads that have taken a job and not finished it. */
    private final AtomicInteger busy = new AtomicInteger();
    private final ThreadFactory factory;
    private final int core;
    private final long keepAliveNanos;
    private final Ticker ticker;
    private volatile boolean shutdown;

    HandlerPool(int core, long keepAlive, TimeUnit unit, ThreadFactory factory, Ticker ticker) {
        this.ticker = ticker;
        this.core = core;
        this.keepAliveNanos = unit.toNanos(keepAlive);
        this.factory = factory;
    }

    /** Starts {@code core} threads, parked, so that the first burst of jobs does not create them. */
    void prestart() {
        while (threads.get() < core && !shutdown) {
            Handler h = newHandler(false);
            if (h == null) {
                return;
            }
        }
    }

    @Override
    public void execute(Runnable task) {
        if (shutdown) {
            throw new RejectedExecutionException("the worker's handler threads are shut down");
        }
        ready.add(task);
        signal();
    }

    /**
     * Makes sure a thread comes to look at the queue: unless one is already on its way, wakes a parked one; when none
     * is parked, starts one only if every thread is inside a job (a thread between jobs takes the queue's head next).
     */
    private void signal() {
        while (waking.compareAndSet(0, 1)) {
            Handler h;
            while ((h = idle.pollFirst()) != null) {
                if (h.state.compareAndSet(IDLE, WOKEN)) {
                    LockSupport.unpark(h.thread);
                    return;
                }
            }
            if (busy.get() >= threads.get()) {
                if (newHandler(true) == null) {
                    waking.decrementAndGet(); // shut down, or the factory failed: the running threads drain the queue
                }
                return;
            }
            waking.decrementAndGet();
            // A thread between jobs takes the head next. Checked again after letting go of "waking": a thread that took
            // a job meanwhile may have found this signal in progress and left the queue to it.
            if (ready.isEmpty() || busy.get() < threads.get()) {
                return;
            }
        }
    }

    /** A new thread; {@code woken}: it counts as on its way to the queue (see {@link #waking}). Null when none could be started. */
    private Handler newHandler(boolean woken) {
        Handler h = new Handler(woken);
        Thread t;
        try {
            t = factory.newThread(h::run);
            h.thread = t;
            all.add(h);
            threads.incrementAndGet();
            t.start(); // a thread not woken finds the queue empty, or takes what is there, and then parks
        } catch (RuntimeException | OutOfMemoryError e) {
            if (h.thread != null && all.remove(h)) {
                threads.decrementAndGet();
            }
            LOG.error("cannot start a handler thread", e);
            return null;
        }
        return h;
    }

    /** Refuses new jobs, drops the queued ones, interrupts every thread and lets them end. */
    void shutdownNow() {
        shutdown = true;
        ready.clear();
        for (Handler h : all) {
            h.thread.interrupt();
            LockSupport.unpark(h.thread);
        }
    }

    private final class Handler {
        final AtomicInteger state;
        volatile Thread thread;
        /** Left the pool after its keep-alive, already counted out of {@link #threads}. */
        private boolean retired;

        Handler(boolean woken) {
            state = new AtomicInteger(woken ? WOKEN : ACTIVE);
        }

        void run() {
            try {
                while (!shutdown) {
                    if (state.get() == WOKEN) {
                        state.set(ACTIVE);
                        waking.decrementAndGet();
                    }
                    Runnable task = ready.poll();
                    if (task != null) {
                        busy.incrementAndGet(); // before looking at the queue again: see signal()
                        try {
                            if (!ready.isEmpty()) {
                                signal(); // more jobs wait: bring the next thread before running this one
                            }
                            runQuietly(task);
                        } finally {
                            busy.decrementAndGet();
                        }
                    } else if (!park()) {
                        return; // an extra thread idle for keepAlive
                    }
                }
            } finally {
                if (state.get() == WOKEN) {
                    waking.decrementAndGet();
                }
                all.remove(this);
                if (!retired) {
                    threads.decrementAndGet();
                }
                idle.remove(this);
                if (!shutdown && !ready.isEmpty()) {
                    signal(); // a job queued as this thread left, counting on it
                }
            }
        }

        /** Parks until woken (true) or, for a thread beyond {@code core}, until idle for keepAlive (false). */
        private boolean park() {
            state.set(IDLE);
            idle.addFirst(this);
            // Re-checked after announcing: a job queued before the announcement must not wait for the next signal.
            if (!ready.isEmpty() && state.compareAndSet(IDLE, ACTIVE)) {
                idle.remove(this);
                return true;
            }
            long deadline = ticker.nanos() + keepAliveNanos;
            while (state.get() == IDLE && !shutdown) {
                long left = deadline - ticker.nanos();
                if (left <= 0) {
                    // Counted out first, atomically, so that threads idle at the same moment never leave the pool
                    // with fewer than core; then out of the idle list, unless a job woke this one meanwhile.
                    int n = threads.get();
                    if (n > core && threads.compareAndSet(n, n - 1)) {
                        if (state.compareAndSet(IDLE, ACTIVE)) {
                            idle.remove(this);
                            retired = true;
                            return false;
                        }
                        threads.incrementAndGet(); // woken: it stays
                    }
                    deadline = ticker.nanos() + keepAliveNanos;
                    continue;
                }
                LockSupport.parkNanos(HandlerPool.this, left);
                Thread.interrupted(); // an interrupt meant for a handler that has returned: not for this wait
            }
            if (state.compareAndSet(IDLE, ACTIVE)) { // shut down while idle
                idle.remove(this);
            }
            return true;
        }

        private void runQuietly(Runnable task) {
            try {
                task.run();
            } catch (Throwable e) { // the Dispatcher catches its handlers' failures; this keeps the thread whatever runs
                LOG.error("unexpected error on a handler thread", e);
            } finally {
                Thread.interrupted();
            }
        }
    }
}
