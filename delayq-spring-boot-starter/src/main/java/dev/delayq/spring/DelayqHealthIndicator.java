package dev.delayq.spring;

import dev.delayq.DelayQ;
import dev.delayq.QueueStats;
import dev.delayq.ServerInfo;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * Health contributor {@code delayq}: UP with the Redis server, its mode and version, and the job counts of each
 * queue under the prefix (at most {@value #MAX_QUEUES}); DOWN with the error when Redis cannot be reached or does
 * not answer within delayq's timeout. Dead jobs do not make it DOWN: they are the application's to look at.
 */
public class DelayqHealthIndicator extends AbstractHealthIndicator {
    /** Most queues whose counts are reported (each costs one Redis call per health check). */
    public static final int MAX_QUEUES = 50;

    private final DelayQ delayQ;

    /** Checks the server and queues of {@code delayQ}. */
    public DelayqHealthIndicator(DelayQ delayQ) {
        super("delayq health check failed");
        this.delayQ = delayQ;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        ServerInfo info = delayQ.serverInfo();
        List<String> names = delayQ.queues();
        Map<String, Map<String, Long>> queues = new LinkedHashMap<>();
        for (String name : names.subList(0, Math.min(MAX_QUEUES, names.size()))) {
            QueueStats s = delayQ.inspector(name).stats();
            Map<String, Long> counts = new LinkedHashMap<>();
            counts.put("scheduled", s.scheduled());
            counts.put("processing", s.processing());
            counts.put("done", s.done());
            counts.put("dead", s.dead());
            queues.put(name, counts);
        }
        builder.up()
                .withDetail("server", info.server())
                .withDetail("mode", info.mode())
                .withDetail("version", info.version())
                .withDetail("prefix", delayQ.prefix())
                .withDetail("queues", queues);
        if (names.size() > MAX_QUEUES) {
            builder.withDetail("queuesNotShown", names.size() - MAX_QUEUES);
        }
    }
}
