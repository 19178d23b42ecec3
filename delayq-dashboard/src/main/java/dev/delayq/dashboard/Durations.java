package dev.delayq.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses the durations and instants of API parameters, as the command line writes them. */
final class Durations {
    private static final Pattern PART = Pattern.compile("(\\d{1,12})(ms|s|m|h|d)");
    private static final Pattern WHOLE = Pattern.compile("(\\d{1,12}(ms|s|m|h|d))+");

    private Durations() {
    }

    /**
     * {@code 250ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 7d}, combinations such as {@code 1h30m}, or ISO-8601
     * ({@code PT30S}); never negative.
     *
     * @throws ApiException 400 naming {@code field} and the accepted forms
     */
    static Duration duration(String field, String value) {
        String v = value.strip();
        Duration d;
        if (WHOLE.matcher(v).matches()) {
            d = Duration.ZERO;
            Matcher m = PART.matcher(v);
            try {
                while (m.find()) {
                    long n = Long.parseLong(m.group(1));
                    d = d.plus(switch (m.group(2)) {
                        case "ms" -> Duration.ofMillis(n);
                        case "s" -> Duration.ofSeconds(n);
                        case "m" -> Duration.ofMinutes(n);
                        case "h" -> Duration.ofHours(n);
                        default -> Duration.ofDays(n);
                    });
                }
            } catch (ArithmeticException e) {
                throw ApiException.badRequest(field + " is '" + value + "': too long");
            }
        } else {
            try {
                d = Duration.parse(v);
            } catch (DateTimeParseException e) {
                throw ApiException.badRequest(field + " is '" + value + "': use e.g. 250ms, 30s, 5m, 2h, 7d, 1h30m or PT30S");
            }
        }
        if (d.isNegative()) {
            throw ApiException.badRequest(field + " is '" + value + "': it must not be negative");
        }
        return d;
    }

    /**
     * An ISO-8601 instant with a zone, e.g. {@code 2030-01-01T09:00:00Z} or {@code 2030-01-01T10:00:00+01:00}.
     *
     * @throws ApiException 400 naming {@code field}
     */
    static Instant instant(String field, String value) {
        try {
            return OffsetDateTime.parse(value.strip()).toInstant();
        } catch (DateTimeParseException e) {
            throw ApiException.badRequest(field + " is '" + value + "': use an ISO-8601 time with a zone, e.g. "
                    + "2030-01-01T09:00:00Z");
        }
    }
}
