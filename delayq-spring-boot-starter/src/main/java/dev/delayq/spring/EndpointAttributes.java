package dev.delayq.spring;

import dev.delayq.internal.present.DurationText;
import java.time.Duration;
import java.util.function.Function;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.util.StringUtils;

/**
 * Reads the string attributes of {@link DelayqListener} and {@link DelayqScheduled}: {@code ${...}} placeholders
 * resolved, then parsed, with a message naming the method, the attribute, the value and what is allowed.
 */
final class EndpointAttributes {
    private final ConfigurableBeanFactory beanFactory;

    EndpointAttributes(ConfigurableBeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    /** {@code value} with its placeholders resolved and trimmed; null stays null. */
    String resolve(String value) {
        String resolved = beanFactory.resolveEmbeddedValue(value);
        return resolved == null ? null : resolved.trim();
    }

    /**
     * The parsed attribute, or {@code fallback} when it is empty.
     *
     * @throws IllegalArgumentException "{@code <label>: <attribute> '<value>' (resolved to '...') is not <what>}"
     */
    <T> T get(String label, String attribute, String value, T fallback, Function<String, T> parse) {
        if (!StringUtils.hasText(value)) {
            return fallback;
        }
        String resolved = resolve(value);
        if (!StringUtils.hasText(resolved)) {
            return fallback;
        }
        try {
            return parse.apply(resolved);
        } catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException(label + ": " + attribute + " '" + value + "'"
                    + (value.equals(resolved) ? "" : " (resolved to '" + resolved + "')") + " is not "
                    + ex.getMessage(), ex);
        }
    }

    /** Parses a whole number; the message completes "... is not ". */
    static Integer integer(String s) {
        try {
            return Integer.valueOf(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("a whole number", e);
        }
    }

    /**
     * Parses a duration in delayq's one grammar (the command line's and the dashboard's: {@code 30s}, {@code 500ms},
     * {@code 1h30m}, {@code PT30S}); the message completes "... is not ".
     */
    static Duration duration(String s) {
        try {
            return DurationText.parse(s);
        } catch (DurationText.Invalid e) {
            throw new IllegalArgumentException("a duration: " + e.reason(), e);
        }
    }
}
