package dev.delayq.spring;

import dev.delayq.DelayQ;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * Health contributor {@code delayq} (Spring Boot 3.5): UP with the Redis server, its mode and version, and the job
 * counts of each queue under the prefix (at most 50); DOWN with the error when Redis cannot be reached or does not
 * answer within delayq's timeout, or has not been reached since start-up ({@code delayq.require-redis-at-startup=false}).
 * Dead jobs do not make it DOWN: they are the application's to look at.
 */
public class DelayqHealthIndicator extends AbstractHealthIndicator {
    private final DelayqClient client;

    /** Checks the server and queues of {@code delayQ}. */
    public DelayqHealthIndicator(DelayQ delayQ) {
        this(DelayqClient.of(delayQ));
    }

    /** Checks the server and queues of {@code client}'s {@link DelayQ}; DOWN while it is not connected. */
    public DelayqHealthIndicator(DelayqClient client) {
        super("delayq health check failed");
        this.client = client;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.up().withDetails(DelayqHealthDetails.of(client.get()));
    }
}
