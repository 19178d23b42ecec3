package dev.delayq.internal.worker;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A ticker that moves only when a test moves it (from an origin far from 0, as {@code nanoTime}'s may be). */
final class FakeTicker implements Ticker {
    private final AtomicLong now = new AtomicLong(123_456_789_000L);

    @Override
    public long nanos() {
        return now.get();
    }

    void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }
}
