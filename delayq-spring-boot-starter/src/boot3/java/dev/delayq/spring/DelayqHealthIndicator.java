package dev.delayq.spring;

import dev.delayq.DelayQ;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * Health contributor {@code delayq} (Spring Boot 3.5): UP with the Redis server, its mode and version, and the job
 * counts of each queue under the prefix (at most 50); DOWN with the error when Redis cannot be reached or does not
 * answer within delayq's timeout. Dead jobs do not make it DOWN: they are the application's to look at.
 */
public class DelayqHealthIndicator extends AbstractHealthIndicator {
    private final DelayQ delayQ;

    /** Checks the server and queues of {@code delayQ}. */
    public DelayqHealthIndicator(DelayQ delayQ) {
        super("delayq health check failed");
        this.delayQ = delayQ;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.up().withDetails(DelayqHealthDetails.of(delayQ));
    }
}
