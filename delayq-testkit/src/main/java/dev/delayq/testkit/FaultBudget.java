package dev.delayq.testkit;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How many faults a {@link FaultProxy} may still do over its life: each fault asks it first, and one asked beyond
 * the budget is not done but counted as refused. Thread-safe.
 */
final class FaultBudget {
    private final int max;
    private final AtomicInteger spent = new AtomicInteger();
    private final AtomicLong refused = new AtomicLong();

    FaultBudget(int max) {
        if (max < 0) {
            throw new IllegalArgumentException("max faults must be >= 0, was " + max);
        }
        this.max = max;
    }

    /** Spends one fault: true if it was within the budget, else counts it refused. */
    boolean spend() {
        if (spent.incrementAndGet() > max) {
            refused.incrementAndGet();
            return false;
        }
        return true;
    }

    /** Takes one armed fault of {@code armed} (tears or closes on accept) within the budget; disarms all beyond it. */
    boolean take(AtomicInteger armed) {
        while (true) {
            int n = armed.get();
            if (n <= 0) {
                return false;
            }
            if (armed.compareAndSet(n, n - 1)) {
                if (!spend()) {
                    armed.set(0);
                    return false;
                }
                return true;
            }
        }
    }

    /** Faults asked for beyond the budget, not done. */
    long refused() {
        return refused.get();
    }
}
