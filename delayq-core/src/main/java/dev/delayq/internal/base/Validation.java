package dev.delayq.internal.base;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

/** Input checks shared by the public API and the engines; every message names the field, the value and what is allowed. */
public final class Validation {
    // The bounds checked here, published as dev.delayq.Bounds (which takes them from here: this package depends on
    // nothing of delayq, so the public value types can use it without a cycle).
    public static final int MAX_ATTEMPTS = ScriptLimits.MAX_ATTEMPTS;
    public static final int MAX_DEDUPE_KEY_BYTES = 512;
    public static final Instant MAX_DUE = Instant.ofEpochMilli(253_402_300_799_999L);
    public static final int MAX_ID_BYTES = 512;
    public static final Duration MAX_JOB_TIMEOUT = Duration.ofDays(1);
    public static final int MAX_NAME_BYTES = 128;
    public static final int MAX_PREFIX = 64;
    public static final int MAX_QUEUE_NAME = 128;
    public static final Duration MAX_SPAN = Duration.ofMillis(253_402_300_799_999L);

    private Validation() {
    }

    /** Longest group key (must match includes/groups.lua's GROUP_MAX). */
    public static final int MAX_GROUP = 128;
    private static final java.util.regex.Pattern GROUP = java.util.regex.Pattern.compile("[A-Za-z0-9._:@/+=-]{1,128}");

    /** A job's group key: it becomes part of a key name, so it is kept to a safe set of characters. */
    public static String group(String group) {
        if (group == null || !GROUP.matcher(group).matches()) {
            throw new IllegalArgumentException("group '" + (group == null ? "null" : printable(group)) + "' is invalid: use 1-"
                    + MAX_GROUP + " characters: letters, digits and . _ - : @ / + =");
        }
        return group;
    }

    /** A job's group: {@code null} (none) or as {@link #group(String)} checks it. */
    public static void optionalGroup(String group) {
        if (group != null) {
            group(group);
        }
    }

    /** Queue names become part of key names inside the {@code {...}} hash tag. */
    public static String queueName(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("queue name must not be empty: use 1-" + MAX_QUEUE_NAME
                    + " characters from A-Z a-z 0-9 . _ - :");
        }
        if (name.length() > MAX_QUEUE_NAME || !safeName(name)) {
            throw new IllegalArgumentException("queue name '" + printable(name) + "' is invalid: use 1-"
                    + MAX_QUEUE_NAME + " characters from A-Z a-z 0-9 . _ - : (no braces, spaces or other symbols)");
        }
        return name;
    }

    /** Key prefixes are the first part of every key name. */
    public static String prefix(String prefix) {
        if (prefix == null || prefix.isEmpty() || prefix.length() > MAX_PREFIX || !safeName(prefix)) {
            throw new IllegalArgumentException("key prefix '" + printable(String.valueOf(prefix)) + "' is invalid: use 1-"
                    + MAX_PREFIX + " characters from A-Z a-z 0-9 . _ - :");
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
        return text("job id", id, MAX_ID_BYTES);
    }

    /** Dedupe keys: 1-512 UTF-8 bytes, no control characters. */
    public static String dedupeKey(String key) {
        return text("dedupe key", key, MAX_DEDUPE_KEY_BYTES);
    }

    /**
     * Schedule names: 1-128 UTF-8 bytes (a job name's limit), no control characters, no {@code @} (a tick's job id is {@code <name>@<ms>},
     * which is how a partitioned queue routes it to its schedule's partition). The names a schedule may be looked up,
     * removed and ticked by; a new one must also pass {@link #newScheduleName}.
     */
    public static String scheduleName(String name) {
        text("schedule name", name, dev.delayq.Schedule.MAX_NAME_BYTES);
        if (name.indexOf('@') >= 0) {
            throw new IllegalArgumentException("schedule name '" + printable(name) + "' contains '@': not allowed (a tick's "
                    + "job id is <name>@<tick ms>); use 1-" + dev.delayq.Schedule.MAX_NAME_BYTES + " bytes of text without '@'");
        }
        return name;
    }

    /**
     * The name of a schedule being stored: a {@link #scheduleName}, neither blank nor with blanks (any white space) at
     * either end. Such a name lists as blank or as another name, and is not typed back the same (a shell drops the
     * blanks of an unquoted word); blanks inside a name are allowed. Only stored names are held to it, so a schedule
     * stored before this rule can still be read, ticked and removed.
     */
    public static String newScheduleName(String name) {
        scheduleName(name);
        if (name.codePoints().allMatch(Validation::blank)) {
            throw new IllegalArgumentException("schedule name '" + printable(name) + "' is blank: use 1-"
                    + dev.delayq.Schedule.MAX_NAME_BYTES + " bytes of text that start and end with a visible character");
        }
        if (blank(name.codePointAt(0)) || blank(name.codePointBefore(name.length()))) {
            throw new IllegalArgumentException("schedule name '" + printable(name) + "' " + (blank(name.codePointAt(0))
                    ? "starts" : "ends") + " with a blank: use 1-" + dev.delayq.Schedule.MAX_NAME_BYTES
                    + " bytes of text that start and end with a visible character (blanks inside are allowed)");
        }
        return name;
    }

    /** White space of any kind: spaces, tabs, no-break and ideographic spaces. */
    private static boolean blank(int c) {
        return Character.isWhitespace(c) || Character.isSpaceChar(c);
    }

    /** Job names: 1-128 UTF-8 bytes, no control characters. */
    public static String jobName(String name) {
        return text("job name", name, MAX_NAME_BYTES);
    }

    /** The longest W3C tracestate a job carries (the specification asks vendors to propagate at least 512). */
    public static final int MAX_TRACESTATE = 512;

    /**
     * A W3C traceparent of version 00: {@code 00-<32 hex>-<16 hex>-<2 hex>}, lower case, trace and span ids not all
     * zero (an invalid context by the specification).
     */
    public static String traceparent(String tp) {
        boolean ok = tp.length() == 55 && tp.startsWith("00-") && tp.charAt(35) == '-' && tp.charAt(52) == '-'
                && hex(tp, 3, 35) && hex(tp, 36, 52) && hex(tp, 53, 55);
        if (!ok) {
            throw new IllegalArgumentException("traceparent '" + printable(tp) + "' is not a W3C trace context: expected"
                    + " 00-<32 hex digits trace id>-<16 hex digits span id>-<2 hex digits flags>, lower case,"
                    + " e.g. 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        }
        if (zeros(tp, 3, 35) || zeros(tp, 36, 52)) {
            throw new IllegalArgumentException("traceparent '" + tp + "' has an all-zero trace or span id: such a"
                    + " context is invalid (W3C Trace Context)");
        }
        return tp;
    }

    /** A W3C tracestate: at most {@link #MAX_TRACESTATE} characters of printable ASCII (0x20 to 0x7E). */
    public static String tracestate(String ts) {
        if (ts.length() > MAX_TRACESTATE) {
            throw new IllegalArgumentException("tracestate is " + ts.length() + " characters long: a job carries at most "
                    + MAX_TRACESTATE);
        }
        for (int i = 0; i < ts.length(); i++) {
            char c = ts.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                throw new IllegalArgumentException("tracestate '" + printable(ts) + "' holds the character U+"
                        + String.format("%04X", (int) c) + " at index " + i
                        + ": a W3C tracestate is printable ASCII (0x20 to 0x7E)");
            }
        }
        return ts;
    }

    private static boolean zeros(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            if (s.charAt(i) != '0') {
                return false;
            }
        }
        return true;
    }

    private static boolean hex(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
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
            if (Character.getType(c) == Character.FORMAT || Character.getType(c) == Character.LINE_SEPARATOR
                    || Character.getType(c) == Character.PARAGRAPH_SEPARATOR) {
                // Direction overrides (U+202E) and other invisible characters make an id read as another one.
                throw new IllegalArgumentException(field + " '" + printable(value) + "' contains the invisible format "
                        + "character U+" + String.format("%04X", (int) c) + " at index " + i
                        + ": format characters (direction overrides, zero-width characters) are not allowed");
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

    /** A delay must be zero or positive, and no longer than the span to the latest due time. */
    public static Duration delay(String field, Duration delay) {
        if (delay == null) {
            throw new IllegalArgumentException(field + " must not be null");
        }
        if (delay.isNegative()) {
            throw new IllegalArgumentException(field + " is " + human(delay) + ": it must be zero or positive");
        }
        if (delay.compareTo(MAX_SPAN) > 0) {
            throw new IllegalArgumentException(field + " is " + human(delay) + ": it must be at most "
                    + human(MAX_SPAN) + " (no due time falls beyond year 9999)");
        }
        return delay;
    }

    /** A duration no longer than {@code max} (so that it never overflows when scaled to ms or ns). */
    public static Duration atMost(String field, Duration d, Duration max) {
        if (d != null && d.compareTo(max) > 0) {
            throw new IllegalArgumentException(field + " is " + human(d) + ": it must be at most " + human(max));
        }
        return d;
    }

    /** An instant must lie between 1970-01-01 and 9999-12-31T23:59:59.999Z. */
    public static Instant instant(String field, Instant at) {
        if (at == null) {
            throw new IllegalArgumentException(field + " must not be null");
        }
        if (at.isBefore(Instant.EPOCH) || at.isAfter(MAX_DUE)) {
            throw new IllegalArgumentException(field + " is " + at + ": it must lie between 1970-01-01T00:00:00Z and "
                    + MAX_DUE + " (year 9999)");
        }
        return at;
    }

    /**
     * Max attempts, or 0 to leave them to the worker's retry policy (a schedule's default): the bounds of
     * {@link #maxAttempts(int)} otherwise.
     */
    public static int maxAttemptsOrPolicy(String field, int n) {
        if (n < 0 || n > MAX_ATTEMPTS) {
            throw new IllegalArgumentException(field + " is " + n + ": it must be between 1 and " + MAX_ATTEMPTS
                    + ", or 0 for the worker's retry policy");
        }
        return n;
    }

    /**
     * A job timeout, a job's own or a worker's default: 1 ms to {@link Bounds#MAX_JOB_TIMEOUT}.
     *
     * @param field how the message names it, e.g. {@code job timeout} or a command line option
     */
    public static Duration jobTimeout(String field, Duration d) {
        if (d == null || d.compareTo(Duration.ofMillis(1)) < 0 || d.compareTo(MAX_JOB_TIMEOUT) > 0) {
            throw new IllegalArgumentException(field + " is " + (d == null ? "missing" : human(d)) + ": it must be between "
                    + "1ms and " + human(MAX_JOB_TIMEOUT));
        }
        return d;
    }

    /** Max attempts: 1 to {@link Bounds#MAX_ATTEMPTS}. */
    public static int maxAttempts(int n) {
        if (n < 1 || n > MAX_ATTEMPTS) {
            throw new IllegalArgumentException("max attempts is " + n + ": it must be between 1 and " + MAX_ATTEMPTS);
        }
        return n;
    }

    /** A strictly positive duration of at least 1 ms (lease lengths, timeouts, TTLs), bounded as {@link #delay}. */
    public static Duration positive(String field, Duration d) {
        if (d == null || d.isZero() || d.isNegative()) {
            throw new IllegalArgumentException(field + " is " + (d == null ? "missing" : human(d)) + ": it must be positive");
        }
        atMost(field, d, MAX_SPAN);
        if (d.toMillis() < 1) {
            throw new IllegalArgumentException(field + " is " + human(d) + ": it must be at least 1 ms");
        }
        return d;
    }

    /**
     * A duration in the units people write: {@code 250ms}, {@code 30s}, {@code 5m}, {@code 1h30m}, {@code 7d} (never
     * {@code PT30S}), for messages and logs.
     */
    public static String human(Duration d) {
        if (d == null) {
            return "null";
        }
        if (d.isNegative()) {
            return "-" + human(d.negated());
        }
        if (d.compareTo(Duration.ofDays(100_000)) > 0) {
            return d.toDays() + "d";
        }
        long ms = d.toMillis();
        if (ms == 0) {
            return d.isZero() ? "0s" : d.toNanos() / 1000 + "us";
        }
        StringBuilder b = new StringBuilder();
        long[] sizes = {86_400_000L, 3_600_000L, 60_000L, 1000L, 1L};
        String[] units = {"d", "h", "m", "s", "ms"};
        for (int i = 0; i < sizes.length; i++) {
            if (ms >= sizes[i]) {
                b.append(ms / sizes[i]).append(units[i]);
                ms %= sizes[i];
            }
        }
        return b.toString();
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
