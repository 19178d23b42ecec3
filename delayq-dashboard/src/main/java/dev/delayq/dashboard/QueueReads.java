package dev.delayq.dashboard;

import dev.delayq.DelayQ;
import dev.delayq.DelayQConnectionException;
import dev.delayq.DelayQTimeoutException;
import dev.delayq.QueueStats;
import dev.delayq.internal.present.JobFields;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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

    /** One queue's read: its stats, or (null stats) the failure that makes it unreadable. */
    record Read(String name, QueueStats stats, RuntimeException error) {
    }

    /**
     * Every queue of {@code names}, in that order, read by {@link DelayQ#statsAsync(List)}: all queues' partitions in
     * {@code stats_many.lua} calls of at most 250 partitions, all sent before any answer is awaited, so a refresh of
     * 2,001 queues costs 9 requests and one round trip, not 2,001 of each. A queue that cannot be read is a
     * {@link Read} with its error; Redis unreachable or too slow is thrown.
     */
    static List<Read> readAll(DelayQ dq, List<String> names) {
        List<String> valid = new ArrayList<>(names.size());
        Map<String, CompletableFuture<QueueStats>> refused = new LinkedHashMap<>();
        for (String name : names) {
            try {
                dq.inspector(name);
                valid.add(name);
            } catch (DelayQConnectionException | DelayQTimeoutException e) {
                throw e;
            } catch (RuntimeException e) {
                refused.put(name, CompletableFuture.failedFuture(e));
            }
        }
        Map<String, CompletableFuture<QueueStats>> read = dq.statsAsync(valid);
        List<CompletableFuture<QueueStats>> pending = new ArrayList<>(names.size());
        for (String name : names) {
            pending.add(read.containsKey(name) ? read.get(name) : refused.get(name));
        }
        List<Read> out = new ArrayList<>(names.size());
        for (int i = 0; i < names.size(); i++) {
            try {
                out.add(new Read(names.get(i), pending.get(i).join(), null));
            } catch (CompletionException | CancellationException e) {
                RuntimeException cause = e.getCause() instanceof RuntimeException r ? r : e;
                if (cause instanceof DelayQConnectionException || cause instanceof DelayQTimeoutException) {
                    throw cause;
                }
                LOG.warn("dashboard: queue '{}' cannot be read: {}", names.get(i), cause.toString());
                out.add(new Read(names.get(i), null, cause));
            }
        }
        return out;
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
