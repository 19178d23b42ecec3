package dev.delayq.internal;

/**
 * One rule for printing user data in a line of text (the command line's tables and event lines, the worker's job log
 * lines), so that it cannot pass for several fields, for another value or for the end of the line.
 */
public final class TextFields {
    private TextFields() {
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
        if (s == null) {
            return "-";
        }
        if (!s.isEmpty() && !s.equals("-") && !needsQuotes(s)) {
            return s;
        }
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i); // an unpaired surrogate comes as itself
            i += Character.charCount(cp);
            switch (cp) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (cp == ' ' || !hidden(cp)) {
                        b.appendCodePoint(cp);
                    } else {
                        for (char c : Character.toChars(cp)) {
                            b.append(String.format("\\u%04x", (int) c));
                        }
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    private static boolean needsQuotes(String s) {
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            i += Character.charCount(cp);
            if (cp == '"' || cp == '\\' || hidden(cp)) {
                return true;
            }
        }
        return false;
    }

    /** Whether a code point does not show as itself: white space, control, format, separator, unassigned, private. */
    private static boolean hidden(int cp) {
        return Character.isWhitespace(cp) || Character.isSpaceChar(cp) || Character.isISOControl(cp)
                || switch (Character.getType(cp)) {
                    case Character.FORMAT, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR, Character.UNASSIGNED,
                         Character.PRIVATE_USE, Character.SURROGATE -> true;
                    default -> false;
                };
    }
}
