package dev.delayq.chaos;

import dev.delayq.Bounds;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

/**
 * Seeded hostile text and bytes for scenario 11, and the oracle that says, from the documented rules alone,
 * whether delayq must accept each value. Strings mix hash-tag braces, glob and Lua-pattern characters, key
 * separators, line breaks and RESP framing, control characters, unpaired surrogates (Java's form of invalid
 * UTF-8: they cannot be encoded), text decoded from raw bytes, and lengths just under, at and over each limit
 * up to 1 MB.
 */
final class HostileStrings {
    private static final List<String> PIECES = List.of(
            "{", "}", "}{", "{q}", "{}", ":", "::", "*", "?", "[a-z]", "\\", "%", "%s", "%d", ".", "-", "_", "#", "#0",
            "\n", "\r\n", "\r\n*1\r\n$4\r\nPING\r\n", "\0", "\t", " ", "\"", "'", "`", "$", "\u007f", "\u0085", "\u009b",
            "\u2028", "\u2029", "\ufeff", "\u202e", "\u2066", "\u200b", "\u200d", "\ufffd", "\ud800", "\udfff", "\udbff\udfff", "\ud83d\ude00", "é", "日本",
            "nil", "false", "-1", "1e400", "NaN", "[1,2]", "{\"a\":1}", "dq", "dq:queues", "jobs", "due", "leases",
            "meta", "dedupe:", "dedupe", "dedupe:holds", "history", "lock:purge", "~", "@", "!", "/", "<", ">", "&", "|", "^", "+", "=", ",", ";");

    private final Random random;

    HostileStrings(long seed) {
        this.random = new Random(seed);
    }

    /** A hostile string: a few pieces, sometimes raw bytes decoded as Latin-1 or UTF-8, sometimes very long. */
    String next(int limitHint) {
        int kind = random.nextInt(20);
        if (kind == 0) {
            return repeat(limitHint + random.nextInt(3) - 1); // just under, at, or just over the limit
        }
        if (kind == 1) {
            return new String(bytes(1 + random.nextInt(64)), StandardCharsets.ISO_8859_1);
        }
        if (kind == 2) {
            return new String(bytes(1 + random.nextInt(64)), StandardCharsets.UTF_8); // invalid sequences become U+FFFD
        }
        StringBuilder b = new StringBuilder();
        int n = 1 + random.nextInt(6);
        for (int i = 0; i < n; i++) {
            if (random.nextInt(3) == 0) {
                b.append((char) ('a' + random.nextInt(26)));
            }
            b.append(PIECES.get(random.nextInt(PIECES.size())));
        }
        return b.toString();
    }

    /** A string of {@code n} characters, each one or more UTF-8 bytes. */
    String repeat(int n) {
        String unit = random.nextBoolean() ? "x" : random.nextBoolean() ? "é" : "{";
        return unit.repeat(Math.max(0, n));
    }

    /** Garbage bytes. */
    byte[] bytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    int nextInt(int bound) {
        return random.nextInt(bound);
    }

    // ---- the oracle: the documented rules, restated independently of delayq's Validation -----------------

    /**
     * Job ids and dedupe keys: 1-512 UTF-8 bytes of valid text without control characters or invisible format
     * characters (direction overrides, zero-width characters, line and paragraph separators).
     */
    static boolean validText(String s) {
        if (s == null || s.isEmpty()) {
            return false;
        }
        int bytes = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            int type = Character.getType(c);
            if (Character.isISOControl(c) || type == Character.FORMAT || type == Character.LINE_SEPARATOR
                    || type == Character.PARAGRAPH_SEPARATOR) { // invisible characters read as another id
                return false;
            }
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                return false;
            } else {
                bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
            }
        }
        return bytes <= Bounds.MAX_ID_BYTES;
    }

    /** Queue names: 1-128 characters from {@code A-Z a-z 0-9 . _ - :}. */
    static boolean validQueueName(String s) {
        return s != null && !s.isEmpty() && s.length() <= Bounds.MAX_QUEUE_NAME && s.matches("[A-Za-z0-9._:-]+");
    }
}
