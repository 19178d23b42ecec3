package dev.delayq.dashboard;

import dev.delayq.MinuteStats;
import dev.delayq.QueueInspector;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code /history?window=1h|24h|7d}: the queue page's chart windows, each a bounded number of points (issue 43). The
 * last hour is its 60 minutes; the last day its 1,440 minutes summed into 10-minute points on read (about 145: too
 * many to draw otherwise); seven days the 168 hours the scripts keep beside the minutes.
 */
enum HistoryWindow {
    HOUR("1h", 60),
    DAY("24h", 600),
    WEEK("7d", 3600);

    /** Minutes summed per point of the day window. */
    static final int DAY_POINT_MINUTES = 10;

    private final String text;
    private final int pointSeconds;

    HistoryWindow(String text, int pointSeconds) {
        this.text = text;
        this.pointSeconds = pointSeconds;
    }

    static HistoryWindow parse(String s) {
        for (HistoryWindow w : values()) {
            if (w.text.equals(s)) {
                return w;
            }
        }
        throw ApiException.badRequest("window is '" + s + "': use 1h, 24h or 7d");
    }

    /** The answer: {@code {queue, window, pointSeconds, points: [{start, enqueued, ..., lagP99Millis}]}}. */
    Map<String, Object> read(QueueInspector q) {
        List<MinuteStats> points = switch (this) {
            case HOUR -> q.history(60);
            case DAY -> sum(q.history(1440), DAY_POINT_MINUTES);
            case WEEK -> q.hourlyHistory(168);
        };
        List<Map<String, Object>> rows = new ArrayList<>(points.size());
        for (MinuteStats m : points) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("start", m.minute().toString());
            row.put("enqueued", m.enqueued());
            row.put("completed", m.completed());
            row.put("retried", m.retried());
            row.put("dead", m.dead());
            row.put("lagP50Millis", Double.isNaN(m.lagP50Millis()) ? null : m.lagP50Millis());
            row.put("lagP99Millis", Double.isNaN(m.lagP99Millis()) ? null : m.lagP99Millis());
            rows.add(row);
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("queue", q.name());
        answer.put("window", text);
        answer.put("pointSeconds", pointSeconds);
        answer.put("points", rows);
        return answer;
    }

    /**
     * Minutes summed into points of {@code size} minutes on the clock's boundaries (the first and the current one may
     * be partial): counts added, lag percentiles the worst minute's.
     */
    static List<MinuteStats> sum(List<MinuteStats> minutes, int size) {
        List<MinuteStats> out = new ArrayList<>();
        long open = Long.MIN_VALUE;
        for (MinuteStats m : minutes) {
            long epochMinute = m.minute().getEpochSecond() / 60;
            long start = Math.floorDiv(epochMinute, size) * size;
            if (start != open) {
                open = start;
                out.add(new MinuteStats(m.minute().minusSeconds((epochMinute - start) * 60), 0, 0, 0, 0, Double.NaN,
                        Double.NaN));
            }
            MinuteStats a = out.get(out.size() - 1);
            out.set(out.size() - 1, new MinuteStats(a.minute(), a.enqueued() + m.enqueued(), a.completed() + m.completed(),
                    a.retried() + m.retried(), a.dead() + m.dead(), worst(a.lagP50Millis(), m.lagP50Millis()),
                    worst(a.lagP99Millis(), m.lagP99Millis())));
        }
        return out;
    }

    private static double worst(double a, double b) {
        return Double.isNaN(a) ? b : Double.isNaN(b) ? a : Math.max(a, b);
    }
}
