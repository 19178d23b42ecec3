package dev.delayq.internal.present;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads the text Redis answers to {@code INFO} (and {@code CLUSTER INFO}): {@code field:value} lines, {@code #}
 * section titles and blank lines between. The client's server facts, the dashboard's {@code /api/server} and the
 * benchmark's probes read INFO through this one parser.
 */
public final class InfoText {
    private InfoText() {
    }

    /** Every {@code field:value} line as field to value (trimmed), in the reply's order; titles and blanks skipped. */
    public static Map<String, String> parse(String text) {
        Map<String, String> out = new LinkedHashMap<>();
        if (text == null) {
            return out;
        }
        for (String line : text.split("\r?\n")) {
            int i = line.indexOf(':');
            if (i > 0 && !line.startsWith("#")) {
                out.put(line.substring(0, i), line.substring(i + 1).trim());
            }
        }
        return out;
    }

    /** A field as a whole number; {@code fallback} when it is missing or not a number. */
    public static long longOf(Map<String, String> info, String field, long fallback) {
        String v = info.get(field);
        if (v == null) {
            return fallback;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            return fallback;
        }
    }
}
