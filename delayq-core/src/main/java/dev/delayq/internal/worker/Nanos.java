package dev.delayq.internal.worker;

import java.time.Duration;

/**
 * Saturating arithmetic for the worker's waits, in nanoseconds. Due times run to year 9999, far beyond what a
 * {@code long} of nanoseconds can hold (year 2262), and settings accept spans of millennia: scaled naively they
 * overflow and a far-future due time reads as "already due". Every wait is clamped to {@link #HORIZON} instead,
 * and ticker readings ({@link Ticker}) are compared only by their difference (which stays exact while the
 * values lie within 2^63 ns of each other: a wait of at most one horizon keeps them so).
 */
final class Nanos {
    /** The longest wait the worker plans, about 73 years: two of them still add up without overflow. */
    static final long HORIZON = Long.MAX_VALUE / 4;

    private Nanos() {
    }

    /** {@code d} in nanoseconds, clamped to {@code [-HORIZON, HORIZON]}. */
    static long of(Duration d) {
        if (d.compareTo(Duration.ofNanos(HORIZON)) >= 0) {
            return HORIZON;
        }
        if (d.compareTo(Duration.ofNanos(-HORIZON)) <= 0) {
            return -HORIZON;
        }
        return d.toNanos();
    }

    /** {@code nanos} clamped to {@code [-HORIZON, HORIZON]}. */
    static long clamp(long nanos) {
        return Math.max(-HORIZON, Math.min(HORIZON, nanos));
    }
}
