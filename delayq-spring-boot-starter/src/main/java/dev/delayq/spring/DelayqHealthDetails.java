package dev.delayq.spring;

import dev.delayq.DelayQ;
import dev.delayq.QueueStats;
import dev.delayq.ServerInfo;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the {@code delayq} health contributor reports when Redis answers: the server, its mode and version, the prefix,
 * and the job counts of each queue under the prefix (at most {@value #MAX_QUEUES}). Each Boot line's
 * {@code DelayqHealthIndicator} reports it UP, or DOWN with the error when Redis cannot be reached or does not answer
 * within delayq's timeout. Dead jobs do not make it DOWN: they are the application's to look at.
 */
final class DelayqHealthDetails {
    /** Most queues whose counts are reported (each costs one Redis call per health check). */
    static final int MAX_QUEUES = 50;

    private DelayqHealthDetails() {
    }

    /** The details, read from Redis now. */
    static Map<String, Object> of(DelayQ delayQ) {
        OperatorCalls ops = new OperatorCalls(delayQ);
        ServerInfo info = delayQ.serverInfo();
        List<String> names = ops.queues();
        Map<String, Map<String, Long>> queues = new LinkedHashMap<>();
        for (String name : names.subList(0, Math.min(MAX_QUEUES, names.size()))) {
            QueueStats s = ops.stats(name);
            Map<String, Long> counts = new LinkedHashMap<>();
            counts.put("scheduled", s.scheduled());
            counts.put("processing", s.processing());
            counts.put("done", s.done());
            counts.put("dead", s.dead());
            queues.put(name, counts);
        }
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("server", info.server());
        details.put("mode", info.mode());
        details.put("version", info.version());
        details.put("prefix", delayQ.prefix());
        details.put("queues", queues);
        if (names.size() > MAX_QUEUES) {
            details.put("queuesNotShown", names.size() - MAX_QUEUES);
        }
        return details;
    }
}
