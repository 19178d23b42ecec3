package dev.delayq.dashboard;

import dev.delayq.JobInfo;
import dev.delayq.QueueInspector;
import dev.delayq.internal.present.JobFields;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Search within one state of a queue (issue 43): jobs whose id starts with the text, or whose name or last error
 * contains it (ignoring case). A bounded scan: one request reads at most {@link #SCAN_LIMIT} jobs in index order from
 * {@code from} (payloads cut to {@link #SCAN_PREVIEW} bytes by Redis while scanning) and answers at most
 * {@link #MATCH_LIMIT} matches, with {@code next}, the position to go on from ({@code null} at the end of the index).
 */
final class Search {
    /** Most jobs one search reads. */
    static final int SCAN_LIMIT = 10_000;
    /** Most matches one search answers. */
    static final int MATCH_LIMIT = 50;
    /** The longest search text. */
    static final int MAX_TEXT = 200;
    private static final int PAGE = 500;
    private static final int SCAN_PREVIEW = 256;

    private Search() {
    }

    static Map<String, Object> run(QueueInspector q, JobFilter state, String text, long from) {
        List<Map<String, Object>> jobs = new ArrayList<>();
        long pos = from;
        long scanned = 0;
        boolean end = false;
        while (scanned < SCAN_LIMIT && jobs.size() < MATCH_LIMIT && !end) {
            List<JobInfo> page = state.page(q, pos, (int) Math.min(PAGE, SCAN_LIMIT - scanned), SCAN_PREVIEW);
            end = page.isEmpty();
            for (JobInfo j : page) {
                pos++;
                scanned++;
                if (matches(j, text)) {
                    jobs.add(JobFields.job(j, Dashboard.PAYLOAD_PREVIEW_BYTES));
                    if (jobs.size() == MATCH_LIMIT) {
                        break;
                    }
                }
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("jobs", jobs);
        m.put("state", state.label());
        m.put("q", text);
        m.put("from", from);
        m.put("scanned", scanned);
        m.put("next", end ? null : pos);
        m.put("scanLimit", SCAN_LIMIT);
        m.put("matchLimit", MATCH_LIMIT);
        return m;
    }

    /** Whether {@code j}'s id starts with {@code text}, or its name or last error contains it (ignoring case). */
    static boolean matches(JobInfo j, String text) {
        String needle = text.toLowerCase(Locale.ROOT);
        return j.id().startsWith(text) || contains(j.name(), needle) || contains(j.lastError(), needle);
    }

    private static boolean contains(String field, String needle) {
        return field != null && field.toLowerCase(Locale.ROOT).contains(needle);
    }
}
