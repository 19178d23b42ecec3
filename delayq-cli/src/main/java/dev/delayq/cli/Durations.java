package dev.delayq.cli;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Parses the durations and instants the command line accepts. */
public final class Durations {
    private static final Pattern SIMPLE = Pattern.compile("(\\d+)(ms|s|m|h|d)");

    private Durations() {
    }

    /**
     * {@code 250ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 7d}, combinations such as {@code 1h30m},
     * or ISO-8601 ({@code PT30S}, {@code P1D}).
     *
     * @throws IllegalArgumentException naming the accepted forms
     */
    public static Duration parse(String text) {
        String s = text == null ? "" : text.trim();
        if (s.startsWith("P") || s.startsWith("p") || s.startsWith("-P")) {
            try {
                return Duration.parse(s);
            } catch (DateTimeParseException e) {
                throw invalid(text);
            }
        }
        Matcher m = SIMPLE.matcher(s);
        Duration total = Duration.ZERO;
        int end = 0;
        while (m.find() && m.start() == end) {
            long n;
            try {
                n = Long.parseLong(m.group(1));
            } catch (NumberFormatException e) {
                throw invalid(text);
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
        if (end == 0 || end != s.length()) {
            throw invalid(text);
        }
        return total;
    }

    private static IllegalArgumentException invalid(String text) {
        return new IllegalArgumentException("invalid duration '" + text
                + "': use a number with ms, s, m, h or d (250ms, 30s, 5m, 2h, 7d, 1h30m) or ISO-8601 (PT30S)");
    }

    /**
     * An ISO-8601 instant with a zone: {@code 2026-12-01T10:00:00Z} or {@code 2026-12-01T11:00:00+01:00}.
     *
     * @throws IllegalArgumentException naming the accepted form
     */
    public static Instant parseInstant(String text) {
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            try {
                return OffsetDateTime.parse(text).toInstant();
            } catch (DateTimeParseException e2) {
                throw new IllegalArgumentException("invalid instant '" + text
                        + "': use ISO-8601 with a zone, e.g. 2026-12-01T10:00:00Z or 2026-12-01T11:00:00+01:00");
            }
        }
    }

    /** picocli converter for durations. */
    public static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            try {
                return parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    /** picocli converter for instants. */
    public static final class InstantConverter implements CommandLine.ITypeConverter<Instant> {
        @Override
        public Instant convert(String value) {
            try {
                return parseInstant(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
