package dev.delayq.cli;

import dev.delayq.internal.present.DurationText;
import java.time.Duration;
import java.time.Instant;
import picocli.CommandLine;

/**
 * picocli's side of the duration grammar, which is {@link DurationText} (the dashboard's and the starter's too): the
 * converters of the options that take a duration or an instant.
 */
public final class Durations {
    private Durations() {
    }

    /** picocli converter for durations ({@link DurationText#parse}). */
    public static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            try {
                return DurationText.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    /** picocli converter for instants ({@link DurationText#parseInstant}). */
    public static final class InstantConverter implements CommandLine.ITypeConverter<Instant> {
        @Override
        public Instant convert(String value) {
            try {
                return DurationText.parseInstant(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
