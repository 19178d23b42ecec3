package dev.delayq.internal.present;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one duration grammar of delayq's surfaces: the command line's options, the dashboard's API parameters and the
 * Spring Boot starter's listener attributes read durations, rates and instants here, and every duration shown to a
 * person (a message, a table, a {@code rate} in JSON) is printed here, in the units it reads.
 *
 * <p>Messages name the value and the accepted forms; a caller that names the field (the dashboard's
 * {@code delay is 'soon': ...}) uses {@link Invalid#reason()}, the part after the value.
 */
public final class DurationText {
    private static final Pattern SIMPLE = Pattern.compile("(\\d+)(ms|s|m|h|d)");
    /** A rate: N, a slash, then a duration, or a unit alone (one of it). */
    private static final Pattern RATE = Pattern.compile("(\\d{1,10})/(.+)");
    private static final Pattern UNIT = Pattern.compile("ms|s|m|h|d");
    /** The most jobs per window of a rate (the core's bound, {@code Limits.withRate}). */
    private static final long MAX_RATE_JOBS = 1_000_000_000L;
    /**
     * The longest duration any option accepts: 10,000 years. Longer ones cannot name a time before year 9999
     * (the latest due time) and, as milliseconds, come close to overflowing a long.
     */
    public static final Duration MAX = Duration.ofDays(3_650_000);

    /**
     * An ISO-8601 duration standing alone (not inside a quoted value or a word, not the example of the accepted
     * forms in the command line's own messages): PT30S, PT-5S, P3D, PT1H30M.
     */
    private static final Pattern ISO_IN_TEXT = Pattern.compile(
            "(?<![\\w'\"])(?<!ISO-8601 \\()-?P(?:\\d+D)?(?:T(?:-?\\d+H)?(?:-?\\d+M)?(?:-?\\d+(?:\\.\\d+)?S)?)?(?![\\w'\"])");

    private DurationText() {
    }

    /**
     * {@code 250ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 7d}, combinations such as {@code 1h30m},
     * or ISO-8601 ({@code PT30S}, {@code P1D}); at most {@link #MAX}.
     *
     * @throws Invalid naming the value and the accepted forms, or the longest accepted duration
     */
    public static Duration parse(String text) {
        String s = text == null ? "" : text.trim();
        Duration total;
        if (s.startsWith("P") || s.startsWith("p") || s.startsWith("-P")) {
            try {
                total = Duration.parse(s);
            } catch (DateTimeParseException e) {
                throw e.getCause() instanceof ArithmeticException || e.getCause() instanceof NumberFormatException
                        ? tooLong(text) : invalid(text);
            }
        } else {
            total = simple(s, text);
        }
        if (total.abs().compareTo(MAX) > 0) {
            throw tooLong(text);
        }
        return total;
    }

    private static Duration simple(String s, String text) {
        Matcher m = SIMPLE.matcher(s);
        Duration total = Duration.ZERO;
        int end = 0;
        try {
            while (m.find() && m.start() == end) {
                long n;
                try {
                    n = Long.parseLong(m.group(1));
                } catch (NumberFormatException e) {
                    throw tooLong(text); // only digits: more than a long holds
                }
                total = total.plus(switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    case "h" -> Duration.ofHours(n);
                    default -> Duration.ofDays(n);
                });
                end = m.end();
            }
        } catch (ArithmeticException e) {
            throw tooLong(text);
        }
        if (end == 0 || end != s.length()) {
            throw invalid(text);
        }
        return total;
    }

    /** The forms a duration may take, as the messages name them. */
    public static final String FORMS = "use a number with ms, s, m, h or d (250ms, 30s, 5m, 2h, 7d, 1h30m) or ISO-8601 (PT30S)";

    private static Invalid invalid(String text) {
        return new Invalid("invalid duration '" + text + "': " + FORMS, FORMS);
    }

    private static Invalid tooLong(String text) {
        String reason = "too long: at most " + format(MAX) + " (10,000 years)";
        return new Invalid("duration '" + text + "' is " + reason, reason);
    }

    /**
     * A duration that cannot be read, or is out of bounds: the message names the value; {@link #reason()} is what
     * follows it, for a caller that words the start itself.
     */
    public static final class Invalid extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;
        private final String reason;

        Invalid(String message, String reason) {
            super(message);
            this.reason = reason;
        }

        /** Why the value is refused and what is accepted, e.g. {@code it must not be negative}. */
        public String reason() {
            return reason;
        }
    }

    /**
     * A duration that must not be negative (a delay, an age): {@link #parse} and then the sign.
     *
     * @throws Invalid naming the value and the accepted forms, or {@code it must not be negative}
     */
    public static Duration parseNonNegative(String text) {
        Duration d = parse(text);
        if (d.isNegative()) {
            throw new Invalid("duration '" + text + "' is negative: it must not be", "it must not be negative");
        }
        return d;
    }

    /** A rate limit: at most {@code jobs} jobs in any window of {@code per}. */
    public record Rate(int jobs, Duration per) {
    }

    /**
     * A rate {@code N/DUR}: at most N jobs in any window of DUR, with DUR any duration this class reads ({@code 50/1s},
     * {@code 1000/1m}, {@code 5/250ms}); a unit without a number is one of it: {@code 10/s}, {@code 600/m},
     * {@code 5000/h}, {@code 100000/d}. The window's bounds are the core's ({@code Limits.withRate}).
     *
     * @param option how messages name the value, e.g. {@code --rate}
     * @throws IllegalArgumentException naming the accepted forms
     */
    public static Rate parseRate(String option, String text) {
        Matcher m = RATE.matcher(text == null ? "" : text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException(option + " '" + text + "' is invalid: use N/DUR or N/UNIT, e.g. 50/1s, "
                    + "1000/1m or 10/s");
        }
        long n = Long.parseLong(m.group(1));
        if (n < 1 || n > MAX_RATE_JOBS) {
            throw new IllegalArgumentException(option + " " + text + ": N must be from 1 to " + MAX_RATE_JOBS);
        }
        String window = m.group(2).trim();
        // "10/s" reads as people say it (ten a second): a unit alone is one of it.
        return new Rate((int) n, parse(UNIT.matcher(window).matches() ? "1" + window : window));
    }

    /**
     * The duration in the units the command line reads, largest first, parts that are zero left out:
     * {@code 250ms}, {@code 30s}, {@code 1h30m}, {@code 7d}, {@code 1m500ms}; {@code 0s} for zero, a leading
     * {@code -} when negative.
     */
    public static String format(Duration d) {
        if (d.isZero()) {
            return "0s";
        }
        if (d.isNegative()) {
            return "-" + format(d.negated());
        }
        long ms = d.toMillis();
        if (ms == 0) {
            return d.toNanos() / 1000 + "us"; // below the CLI's resolution: shown, though it cannot be typed back
        }
        StringBuilder b = new StringBuilder();
        long days = ms / 86_400_000L;
        ms %= 86_400_000L;
        long hours = ms / 3_600_000L;
        ms %= 3_600_000L;
        long minutes = ms / 60_000L;
        ms %= 60_000L;
        long seconds = ms / 1000;
        ms %= 1000;
        append(b, days, "d");
        append(b, hours, "h");
        append(b, minutes, "m");
        append(b, seconds, "s");
        append(b, ms, "ms");
        return b.toString();
    }

    /**
     * {@code text} with every ISO-8601 duration in it ({@code PT30S}, as Java prints durations) written in the
     * command line's units ({@code 30s}); quoted values (ids, keys) are left as they are.
     */
    public static String humanizeIso(String text) {
        if (text == null || text.indexOf('P') < 0) {
            return text;
        }
        Matcher m = ISO_IN_TEXT.matcher(text);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            String iso = m.group();
            String human = iso;
            if (iso.matches(".*\\d.*")) {
                try {
                    human = format(Duration.parse(iso));
                } catch (DateTimeParseException | ArithmeticException e) {
                    // not a duration after all: keep it
                }
            }
            m.appendReplacement(b, Matcher.quoteReplacement(human));
        }
        m.appendTail(b);
        return b.toString();
    }

    private static void append(StringBuilder b, long n, String unit) {
        if (n > 0) {
            b.append(n).append(unit);
        }
    }

    /**
     * Checks an option's duration against its bounds, both inclusive.
     *
     * @throws IllegalArgumentException {@code --lease is 2d: it must be between 100ms and 24h}
     */
    public static Duration check(String option, Duration value, Duration min, Duration max) {
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new IllegalArgumentException(option + " is " + format(value) + ": it must be between " + format(min)
                    + " and " + format(max));
        }
        return value;
    }

    /**
     * An ISO-8601 instant with a zone: {@code 2026-12-01T10:00:00Z} or {@code 2026-12-01T11:00:00+01:00}.
     *
     * @throws Invalid naming the value and the accepted form
     */
    public static Instant parseInstant(String text) {
        String s = text == null ? "" : text.strip();
        try {
            return Instant.parse(s);
        } catch (DateTimeParseException e) {
            try {
                return OffsetDateTime.parse(s).toInstant();
            } catch (DateTimeParseException e2) {
                String reason = "use ISO-8601 with a zone, e.g. 2026-12-01T10:00:00Z or 2026-12-01T11:00:00+01:00";
                throw new Invalid("invalid instant '" + text + "': " + reason, reason);
            }
        }
    }
}
