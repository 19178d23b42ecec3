package dev.delayq.cli;

import dev.delayq.Bounds;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Byte counts as the command line reads and prints them: {@code 1048576}, {@code 512k}, {@code 4m} (binary units). */
final class Bytes {
    private static final Pattern FORM = Pattern.compile("(\\d{1,12})\\s*(|b|k|kb|kib|m|mb|mib)", Pattern.CASE_INSENSITIVE);

    private Bytes() {
    }

    /**
     * A payload limit: a number of bytes, or with {@code k} (KiB) or {@code m} (MiB); 0 to
     * {@link Bounds#MAX_PAYLOAD_LIMIT}.
     *
     * @throws IllegalArgumentException naming the accepted forms and range
     */
    static int parseLimit(String text) {
        Matcher m = FORM.matcher(text == null ? "" : text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("invalid size '" + text + "': use a number of bytes, or with k or m "
                    + "(1048576, 512k, 4m)");
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2).toLowerCase(Locale.ROOT);
        long bytes = unit.startsWith("k") ? n * 1024 : unit.startsWith("m") ? n * 1024 * 1024 : n;
        if (bytes > Bounds.MAX_PAYLOAD_LIMIT) {
            throw new IllegalArgumentException("'" + text + "' is more than the largest payload limit, "
                    + describe(Bounds.MAX_PAYLOAD_LIMIT));
        }
        return (int) bytes;
    }

    /** {@code 1048576 bytes (1 MiB)}, {@code 1000 bytes}. */
    static String describe(long bytes) {
        if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0) {
            return bytes + " bytes (" + bytes / (1024 * 1024) + " MiB)";
        }
        if (bytes >= 1024 && bytes % 1024 == 0) {
            return bytes + " bytes (" + bytes / 1024 + " KiB)";
        }
        return bytes + " bytes";
    }

    /** picocli converter for {@code --max-payload}. */
    static final class Converter implements CommandLine.ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            try {
                return parseLimit(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
