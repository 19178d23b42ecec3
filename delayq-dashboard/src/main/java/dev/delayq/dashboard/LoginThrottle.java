package dev.delayq.dashboard;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Failed logins (a wrong token on the login page or in a Bearer header) per client address: the first
 * {@link #FREE_FAILURES} are free, then each further failure waits twice as long as the one before (1 s, 2 s, 4 s, ...
 * up to {@link #MAX_WAIT_SECONDS}); a login with the right token clears the address. While an address waits, every
 * attempt of it is refused with 429 and {@code Retry-After}, the right token included (else the wait stops nothing),
 * and counts as a failure.
 * At most {@link #MAX_ADDRESSES} addresses are kept: past that the ones whose wait is over are forgotten.
 */
final class LoginThrottle {
    /** Failures allowed before the waits start. */
    static final int FREE_FAILURES = 5;
    /** The longest wait. */
    static final long MAX_WAIT_SECONDS = 300;
    /** Most addresses remembered. */
    static final int MAX_ADDRESSES = 10_000;

    private record State(int failures, long until) {
    }

    private final Map<String, State> states = new ConcurrentHashMap<>();

    /** Seconds {@code address} must still wait (rounded up), 0 when it may try. */
    long waitSeconds(String address) {
        State s = states.get(key(address));
        if (s == null) {
            return 0;
        }
        long left = s.until() - System.nanoTime();
        return left <= 0 ? 0 : (left + 999_999_999L) / 1_000_000_000L;
    }

    /**
     * Whether {@code address} may try now: 0 when it may, else the seconds it must wait, and the attempt counts as one
     * more failure (a client that keeps trying while it waits doubles its wait; one that waits as told does not).
     */
    long attempt(String address) {
        return waitSeconds(address) > 0 ? failed(address) : 0;
    }

    /** Counts a failure of {@code address}; returns the seconds it must now wait (0: none yet). */
    long failed(String address) {
        State s = states.compute(key(address), (k, old) -> {
            int n = old == null ? 1 : old.failures() + 1;
            long wait = n <= FREE_FAILURES ? 0 : Math.min(MAX_WAIT_SECONDS, 1L << Math.min(30, n - FREE_FAILURES - 1));
            return new State(n, System.nanoTime() + wait * 1_000_000_000L);
        });
        if (states.size() > MAX_ADDRESSES) {
            trim();
        }
        return s.failures() <= FREE_FAILURES ? 0 : waitSeconds(address);
    }

    /** A login with the right token: the address starts afresh. */
    void succeeded(String address) {
        states.remove(key(address));
    }

    private static String key(String address) {
        return address == null ? "" : address;
    }

    private synchronized void trim() {
        long now = System.nanoTime();
        states.values().removeIf(s -> s.until() - now <= 0);
        if (states.size() > MAX_ADDRESSES) {
            states.clear(); // tens of thousands of addresses waiting at once: start over rather than grow
        }
    }
}
