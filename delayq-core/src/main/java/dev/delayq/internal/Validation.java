package dev.delayq.internal;

import dev.delayq.Bounds;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

/** Input checks shared by the public API; every message names the field, the value and what is allowed. */
public final class Validation {
    private Validation() {
    }

    /** Queue names become part of key names inside the {@code {...}} hash tag. */
    public static String queueName(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("queue name must not be empty: use 1-" + Bounds.MAX_QUEUE_NAME
                    + " characters from A-Z a-z 0-9 . _ - :");
        }
        if (name.length() > Bounds.MAX_QUEUE_NAME || !safeName(name)) {
            throw new IllegalArgumentException("queue name '" + printable(name) + "' is invalid: use 1-"
                    + Bounds.MAX_QUEUE_NAME + " characters from A-Z a-z 0-9 . _ - : (no braces, spaces or other symbols)");
        }
        return name;
    }

    /** Key prefixes are the first part of every key name. */
    public static String prefix(String prefix) {
        if (prefix == null || prefix.isEmpty() || prefix.length() > Bounds.MAX_PREFIX || !safeName(prefix)) {
            throw new IllegalArgumentException("key prefix '" + printable(String.valueOf(prefix)) + "' is invalid: use 1-"
                    + Bounds.MAX_PREFIX + " characters from A-Z a-z 0-9 . _ - :");
        }
        return prefix;
    }

    private static boolean safeName(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-' || c == ':';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** Job ids: 1-512 UTF-8 bytes, no control characters (they would corrupt line-based output). */
    public static String jobId(String id) {
        return text("job id", id, Bounds.MAX_ID_BYTES);
    }

    /** Dedupe keys: 1-512 UTF-8 bytes, no control characters. */
    public static String dedupeKey(String key) {
        return text("dedupe key", key, Bounds.MAX_DEDUPE_KEY_BYTES);
    }

    private static String text(String field, String value, int maxBytes) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(field + " must not be empty: use 1-" + maxBytes + " bytes of UTF-8 text");
        }
        int bytes = value.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > maxBytes) {
            throw new IllegalArgumentException(field + " is " + bytes + " bytes long: the limit is " + maxBytes
                    + " bytes of UTF-8");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isISOControl(c)) {
                throw new IllegalArgumentException(field + " '" + printable(value) + "' contains the control character U+"
                        + String.format("%04X", (int) c) + " at index " + i + ": control characters are not allowed");
            }
            if (Character.isSurrogate(c)) {
                boolean paired = Character.isHighSurrogate(c) && i + 1 < value.length()
                        && Character.isLowSurrogate(value.charAt(i + 1));
                if (!paired) {
                    throw new IllegalArgumentException(field + " '" + printable(value)
                            + "' contains an unpaired surrogate at index " + i + ": it must be valid Unicode text");
                }
                i++;
            }
        }
        return value;
    }

    /** A delay must be zero or positive. */
    public static Duration delay(String field, Duration delay) {
        if (delay == null) {
            throw new IllegalArgumentException(field + " must not be null");
        }
        if (delay.isNegative()) {
            throw new IllegalArgumentException(field + " is " + delay + ": it must be zero or positive");
        }
        return delay;
    }

    /** An instant must lie between 1970-01-01 and 9999-12-31T23:59:59.999Z. */
    public static Instant instant(String field, Instant at) {
        if (at == null) {
            throw new IllegalArgumentException(field + " must not be null");
        }
        if (at.isBefore(Instant.EPOCH) || at.isAfter(Bounds.MAX_DUE)) {
            throw new IllegalArgumentException(field + " is " + at + ": it must lie between 1970-01-01T00:00:00Z and "
                    + Bounds.MAX_DUE + " (year 9999)");
        }
        return at;
    }

    /** Max attempts: 1 to {@link Bounds#MAX_ATTEMPTS}. */
    public static int maxAttempts(int n) {
        if (n < 1 || n > Bounds.MAX_ATTEMPTS) {
            throw new IllegalArgumentException("max attempts is " + n + ": it must be between 1 and " + Bounds.MAX_ATTEMPTS);
        }
        return n;
    }

    /** A strictly positive duration (lease lengths, timeouts, TTLs). */
    public static Duration positive(String field, Duration d) {
        if (d == null || d.isZero() || d.isNegative()) {
            throw new IllegalArgumentException(field + " is " + d + ": it must be positive");
        }
        if (d.toMillis() < 1) {
            throw new IllegalArgumentException(field + " is " + d + ": it must be at least 1 ms");
        }
        return d;
    }

    /** An int within {@code [min, max]}. */
    public static int range(String field, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(field + " is " + value + ": it must be between " + min + " and " + max);
        }
        return value;
    }

    /** Shows a string with control characters escaped and long values cut, for error messages. */
    public static String printable(String s) {
        StringBuilder b = new StringBuilder();
        int limit = Math.min(s.length(), 80);
        for (int i = 0; i < limit; i++) {
            char c = s.charAt(i);
            if (Character.isISOControl(c)) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        if (s.length() > limit) {
            b.append("...(").append(s.length()).append(" chars)");
        }
        return b.toString();
    }
}
