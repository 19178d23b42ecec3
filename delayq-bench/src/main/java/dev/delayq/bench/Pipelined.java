package dev.delayq.bench;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Keeps a fixed number of calls in flight on one connection for a while, and measures what they did per
 * second: the ceiling Redis (and this client) allows, against which the workloads' rates can be read.
 */
final class Pipelined {
    private Pipelined() {
    }

    /**
     * What a run did.
     *
     * @param units   what the calls reported doing (calls, or jobs claimed)
     * @param calls   calls that did something
     * @param seconds from the first call sent to the last reply that did something
     */
    record Rate(long units, long calls, double seconds) {
        double perSecond() {
            return units / seconds;
        }
    }

    /**
     * Issues {@code call} with {@code inFlight} calls outstanding until {@code window} has passed or a call
     * reports 0 (nothing left to do), then waits for the outstanding replies.
     *
     * @param call returns a stage completing with how many units the call did
     * @throws RuntimeException the first call's failure, if any failed
     */
    static Rate run(Duration window, int inFlight, Supplier<CompletableFuture<Integer>> call, Duration timeout,
                    Runnable tick) throws InterruptedException {
        Semaphore permits = new Semaphore(inFlight);
        AtomicLong units = new AtomicLong();
        AtomicLong calls = new AtomicLong();
        AtomicBoolean exhausted = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long start = System.nanoTime();
        AtomicLong lastUseful = new AtomicLong(start);
        long end = start + window.toNanos();
        while (System.nanoTime() - end < 0 && !exhausted.get() && failure.get() == null) {
            tick.run();
            if (!permits.tryAcquire(10, TimeUnit.MILLISECONDS)) {
                continue;
            }
            call.get().whenComplete((n, e) -> {
                if (e != null) {
                    failure.compareAndSet(null, e);
                } else if (n > 0) {
                    units.addAndGet(n);
                    calls.incrementAndGet();
                    lastUseful.accumulateAndGet(System.nanoTime(), Math::max);
                } else {
                    exhausted.set(true);
                }
                permits.release();
            });
        }
        if (!permits.tryAcquire(inFlight, timeout.toMillis() + 5_000, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("replies to pipelined calls did not arrive within " + timeout);
        }
        Throwable e = failure.get();
        if (e != null) {
            throw e instanceof RuntimeException re ? re : new IllegalStateException(e);
        }
        return new Rate(units.get(), calls.get(), Burst.seconds(lastUseful.get() - start));
    }
}
