package dev.delayq.cli;

import dev.delayq.internal.TextFields;
import java.nio.charset.StandardCharsets;

/** Text helpers for output. */
public final class Text {
    private Text() {
    }

    /**
     * A field of user data (a job id, a name, an error, a dedupe key...) in a line of text output, written so that it
     * cannot pass for several fields, for another value or for the end of the line: as it is when it is not empty, not
     * {@code -} (which marks "none") and holds only printable characters other than blanks, quotes and backslashes;
     * otherwise in double quotes, with backslash escapes: {@code \"}, {@code \\}, {@code \n}, {@code \r},
     * {@code \t}, and {@code \}{@code uXXXX} for any other control, format, separator or unprintable character (a
     * space stays a space). {@code a b} prints as {@code "a b"}, {@code say "hi"} as {@code "say \"hi\""}.
     */
    public static String field(String s) {
        return TextFields.field(s);
    }

    /**
     * {@code s} cut to {@code max} characters, ending in {@code ...} when cut (never inside a surrogate pair), for a
     * {@link #field} that must not grow a table; {@code null} stays {@code null}.
     */
    public static String cut(String s, int max) {
        if (s == null || s.length() <= max) {
            return s;
        }
        int end = Math.max(0, max - 3);
        if (end > 0 && Character.isHighSurrogate(s.charAt(end - 1))) {
            end--;
        }
        return s.substring(0, end) + "...";
    }

    /** A one-line, length-limited rendering for tables. */
    public static String oneLine(String s, int max) {
        if (s == null) {
            return "";
        }
        String flat = s.replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t");
        return flat.length() <= max ? flat : flat.substring(0, Math.max(0, max - 3)) + "...";
    }
}
