package dev.delayq.internal.worker;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * Logs a Redis outage once when it starts and once when it ends, not once per failed attempt, and gives
 * the bounded, jittered backoff to wait between attempts.
 */
final class OutageLog {
    private static final long MAX_BACKOFF_MS = 5_000;

    private final Logger log;
    private final String what;
    private final Ticker ticker;
    private final AtomicLong failures = new AtomicLong();
    private volatile long sinceNanos;

    OutageLog(Logger log, String what, Ticker ticker) {
        this.log = log;
        this.what = what;
        this.ticker = ticker;
    }

    /** A call failed; returns how long to wait before the next attempt, in ms. */
    long failure(Throwable error) {
        Throwable e = error;
        while (e instanceof java.util.concurrent.CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        long n = failures.getAndIncrement();
        if (n == 0) {
            sinceNanos = ticker.nanos();
            log.warn("{}: Redis call failed ({}); retrying with backoff up to {} ms, further failures are not logged "
                    + "until it succeeds", what, e.getMessage(), MAX_BACKOFF_MS);
        } else {
            log.debug("{}: Redis call failed again ({})", what, e.getMessage());
        }
        long ceiling = Math.min(MAX_BACKOFF_MS, 50L << Math.min(n, 7));
        return ceiling / 2 + ThreadLocalRandom.current().nextLong(ceiling / 2 + 1);
    }

    /** A call succeeded. */
    void success() {
        long n = failures.get();
        if (n > 0 && failures.compareAndSet(n, 0)) {
            log.info("{}: Redis calls succeed again after {} failed attempts over {} ms", what, n,
                    (ticker.nanos() - sinceNanos) / 1_000_000);
        }
    }
}
