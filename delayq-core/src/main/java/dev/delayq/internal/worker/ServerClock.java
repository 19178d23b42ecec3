package dev.delayq.internal.worker;

/**
 * Maps Redis's clock onto this JVM's monotonic clock, so that the worker can act at a Redis time without
 * trusting the wall clock of its machine.
 *
 * <p>Each claim reply carries Redis's {@code TIME}, read before the reply was sent; pairing it with the
 * local {@code nanoTime} at which the reply arrived gives an estimate that is never ahead of Redis (it
 * lags by the reply's travel time). So a job started when {@link #nowMillis()} reaches its due time is
 * never started early by Redis's clock, and a wake-up is late by at most one network trip.
 */
public final class ServerClock {
    private volatile long offsetNanos;
    private volatile boolean known;

    /** Records that Redis's clock read {@code serverMillis} no later than local time {@code receivedNanos}. */
    public void sample(long serverMillis, long receivedNanos) {
        offsetNanos = serverMillis * 1_000_000L - receivedNanos;
        known = true;
    }

    /** Whether a sample was taken. */
    public boolean known() {
        return known;
    }

    /** Estimated Redis time in ms (fractional), never ahead of Redis. */
    public double nowMillis() {
        return (System.nanoTime() + offsetNanos) / 1e6;
    }

    /** The local {@code nanoTime} at which Redis's clock reaches {@code serverMillis} (or later). */
    public long nanosAt(long serverMillis) {
        return serverMillis * 1_000_000L - offsetNanos;
    }
}
