package dev.delayq.dashboard;

import dev.delayq.DelayQ;
import dev.delayq.DelayQConnectionException;
import dev.delayq.DelayQTimeoutException;
import dev.delayq.QueueStats;
import dev.delayq.internal.present.JobFields;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reading one queue among many, so that a queue whose keys cannot be read (a key of the wrong type, a total that is
 * not a number: written by something other than delayq) degrades only itself: the overview, {@code /api/queues} and
 * {@code /metrics} list the other queues and flag it. Redis being unreachable or slow is not one queue's fault and
 * still fails the whole answer (503).
 */
final class QueueReads {
    private static final Logger LOG = LoggerFactory.getLogger(QueueReads.class);

    private QueueReads() {
    }

    /** The queue's stats, or null when they cannot be read (logged); an outage of Redis is thrown. */
    static QueueStats statsOrNull(DelayQ dq, String name) {
        try {
            return dq.inspector(name).stats();
        } catch (DelayQConnectionException | DelayQTimeoutException e) {
            throw e;
        } catch (RuntimeException e) {
            LOG.warn("dashboard: queue '{}' cannot be read: {}", name, e.toString());
            return null;
        }
    }

    /**
     * The queue's entry of {@code /api/queues}: its stats, or {@code {"name", "queue", "unreadable": true, "error"}}
     * when they cannot be read.
     */
    static Map<String, Object> statsOrError(DelayQ dq, String name) {
        try {
            return JobFields.stats(dq.inspector(name).stats());
        } catch (DelayQConnectionException | DelayQTimeoutException e) {
            throw e;
        } catch (RuntimeException e) {
            LOG.warn("dashboard: queue '{}' cannot be read: {}", name, e.toString());
            return unreadable(name, e);
        }
    }

    static Map<String, Object> unreadable(String name, RuntimeException e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        m.put("queue", name);
        m.put("unreadable", true);
        m.put("error", "the queue's keys cannot be read: " + (e.getMessage() != null ? e.getMessage()
                : e.getClass().getSimpleName()) + " ('delayq check " + name + "' tells more)");
        return m;
    }
}
