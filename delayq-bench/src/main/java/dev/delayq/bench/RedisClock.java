package dev.delayq.bench;

import java.util.concurrent.locks.LockSupport;

/**
 * Redis's clock ({@code TIME}) mapped onto this JVM's monotonic clock: Redis epoch nanoseconds = local
 * {@code nanoTime} + {@link #offsetNanos()}. Every time the benchmark reports (due times, handler starts, T0)
 * is on this one clock, so lags do not depend on how well the machine's wall clock agrees with Redis.
 *
 * @param offsetNanos    Redis epoch nanoseconds minus local {@code nanoTime}
 * @param roundTripNanos round trip of the sample the offset came from: the estimate is within half of it
 */
record RedisClock(long offsetNanos, long roundTripNanos) {
    private static final long NANOS_PER_MILLI = 1_000_000L;

    /**
     * The clock from one {@code TIME} reply read between local times {@code sentNanos} and {@code receivedNanos}:
     * Redis read its clock at about the middle of that round trip.
     */
    static RedisClock fromSample(long redisEpochNanos, long sentNanos, long receivedNanos) {
        long middle = sentNanos + (receivedNanos - sentNanos) / 2;
        return new RedisClock(redisEpochNanos - middle, receivedNanos - sentNanos);
    }

    /** Redis epoch nanoseconds at local time {@code localNanos}. */
    long redisNanos(long localNanos) {
        return localNanos + offsetNanos;
    }

    /** Redis's time now, in whole epoch milliseconds. */
    long nowMillis() {
        return Math.floorDiv(redisNanos(System.nanoTime()), NANOS_PER_MILLI);
    }

    /** The local {@code nanoTime} at which Redis's clock reads {@code redisMillis}. */
    long localNanosAt(long redisMillis) {
        return redisMillis * NANOS_PER_MILLI - offsetNanos;
    }

    /** Parks until Redis's clock reads {@code redisMillis}. */
    void parkUntil(long redisMillis) throws InterruptedException {
        parkUntilNanos(localNanosAt(redisMillis));
    }

    /** Parks until local {@code nanoTime} reaches {@code deadline}; an interrupt ends the wait with an exception. */
    static void parkUntilNanos(long deadline) throws InterruptedException {
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while waiting");
            }
        }
    }
}
