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
    /** Samples older than this are forgotten, so the two clocks' drift cannot accumulate. */
    private static final long WINDOW_NANOS = 30_000_000_000L;
    /** A sample this far behind the best is not a slow reply but Redis's clock stepping back: follow it. */
    private static final long STEP_NANOS = 50_000_000L;

    private long bestOffset = Long.MIN_VALUE;
    private long bestAt;
    private volatile long published;
    private volatile boolean known;

    /**
     * Records that Redis's clock read {@code serverMicros} no later than local time {@code receivedNanos}.
     * Every sample underestimates Redis's time by the reply's delay; the least delayed sample of the last
     * 30 s is the best estimate, and is still never ahead of Redis. A sample far behind the best means
     * Redis's clock was stepped back (NTP): it replaces the best at once, so the estimate stays behind Redis.
     */
    public synchronized void sample(long serverMicros, long receivedNanos) {
        long offset = serverMicros * 1000L - receivedNanos;
        if (!known || offset >= bestOffset || offset < bestOffset - STEP_NANOS || receivedNanos - bestAt > WINDOW_NANOS) {
            bestOffset = offset;
            bestAt = receivedNanos;
        }
        published = bestOffset;
        known = true;
    }

    /** Whether a sample was taken. */
    public boolean known() {
        return known;
    }

    /** Estimated Redis time in ms (fractional), never ahead of Redis. */
    public double nowMillis() {
        return (System.nanoTime() + published) / 1e6;
    }

    /** The local {@code nanoTime} at which Redis's clock reaches {@code serverMillis} (or later). */
    public long nanosAt(long serverMillis) {
        return serverMillis * 1_000_000L - published;
    }
}
