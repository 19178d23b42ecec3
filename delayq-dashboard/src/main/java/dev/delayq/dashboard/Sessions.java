package dev.delayq.dashboard;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Login sessions: random 256-bit ids handed out by the login page (in an HttpOnly cookie), valid for
 * {@link #TTL_SECONDS}. Kept in memory only, so a restart logs everyone out; at most {@link #MAX} at once, so
 * that repeated logins cannot grow the map without bound.
 */
final class Sessions {
    /** How long a session lasts from its login. */
    static final int TTL_SECONDS = 12 * 3600;
    /** Most sessions kept; beyond it the ones closest to expiry are dropped. */
    static final int MAX = 1000;

    private final SecureRandom random = new SecureRandom();
    private final Map<String, Long> expiries = new ConcurrentHashMap<>();

    /** A new session id. */
    String create() {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        String id = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        expiries.put(id, System.nanoTime() + TTL_SECONDS * 1_000_000_000L);
        if (expiries.size() > MAX) {
            trim();
        }
        return id;
    }

    /** Whether {@code id} is a live session. */
    boolean valid(String id) {
        if (id == null) {
            return false;
        }
        Long expiry = expiries.get(id);
        if (expiry == null) {
            return false;
        }
        if (System.nanoTime() - expiry > 0) {
            expiries.remove(id);
            return false;
        }
        return true;
    }

    /** Ends a session (logout). */
    void remove(String id) {
        if (id != null) {
            expiries.remove(id);
        }
    }

    private synchronized void trim() {
        long now = System.nanoTime();
        expiries.values().removeIf(expiry -> now - expiry > 0);
        while (expiries.size() > MAX) {
            String oldest = null;
            long oldestExpiry = Long.MAX_VALUE;
            for (Iterator<Map.Entry<String, Long>> it = expiries.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<String, Long> e = it.next();
                if (oldest == null || e.getValue() - oldestExpiry < 0) {
                    oldest = e.getKey();
                    oldestExpiry = e.getValue();
                }
            }
            expiries.remove(oldest);
        }
    }
}
