package dev.delayq.internal.worker;

/**
 * Maps Redis's clock onto this JVM's monotonic clock, so that the worker can act at a Redis time without
 * trusting the wall clock of its machine.
 *
 * <p>Each claim reply carries Redis's {@code TIME}, read before the reply was sent; pairing it with the
 * local ticker reading at which the reply arrived gives an estimate that is never ahead of Redis (it
 * lags by the reply's travel time). So a job started when {@link #nowMillis()} reaches its due time is
 * never started early by Redis's clock, and a wake-up is late by at most one network trip.
 *
 * <p>Due times reach year 9999, past what nanoseconds since 1970 fit in a {@code long} (year 2262): a due
 * time is never scaled to nanoseconds as a whole, only its distance from now, which saturates at
 * {@link Nanos#HORIZON} (a job due in 5000 is "later than the worker will ever sleep", never "already due").
 */
public final class ServerClock {
    /** Samples older than this are forgotten, so the two clocks' drift cannot accumulate. */
    private static final long WINDOW_NANOS = 30_000_000_000L;
    /** A sample this far behind the best is not a slow reply but Redis's clock stepping back: follow it. */
    private static final long STEP_NANOS = 50_000_000L;

    private final Ticker ticker;
    private long bestOffset = Long.MIN_VALUE;
    private long bestAt;
    /** Redis's time in ns since 1970 minus the local ticker reading (Redis's own clock reads before 2262). */
    private volatile long published;
    private volatile boolean known;

    /** A clock not yet sampled, read with {@code ticker} (the worker's). */
    ServerClock(Ticker ticker) {
        this.ticker = ticker;
    }

    /**
     * Records that Redis's clock read {@code serverMicros} no later than local time {@code receivedNanos}.
     * Every sample underestimates Redis's time by the reply's delay; the least delayed sample of the last
     * 30 s is the best estimate, and is still never ahead of Redis. A sample far behind the best means
     * Redis's clock was stepped back (NTP): it replaces the best at once, so the estimate stays behind Redis.
     */
    public synchronized void sample(long serverMicros, long receivedNanos) {
        long offset = Math.min(serverMicros, Long.MAX_VALUE / 1000L) * 1000L - receivedNanos; // saturated, never wrapped
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
        return (ticker.nanos() + published) / 1e6;
    }

    /**
     * How long from local time {@code nowNanos} until Redis's clock reaches {@code serverMillis} (negative when it
     * has passed), clamped to {@code [-HORIZON, HORIZON]}: exact for any due time up to year 9999.
     */
    public long nanosUntil(long serverMillis, long nowNanos) {
        long serverNowNanos = nowNanos + published;
        long deltaMillis = serverMillis - Math.floorDiv(serverNowNanos, 1_000_000L);
        if (Math.abs(deltaMillis) >= Nanos.HORIZON / 1_000_000L) {
            return deltaMillis > 0 ? Nanos.HORIZON : -Nanos.HORIZON;
        }
        // Within the horizon of now, so serverMillis in ns lies within 2^62 of Redis's time in ns: no overflow.
        return Nanos.clamp(serverMillis * 1_000_000L - serverNowNanos);
    }

    /**
     * The local ticker reading at which Redis's clock reaches {@code serverMillis} (or later), at most one horizon
     * from {@code nowNanos}; compare it with other ticker readings only by difference.
     */
    public long nanosAt(long serverMillis, long nowNanos) {
        return nowNanos + nanosUntil(serverMillis, nowNanos);
    }
}
