package dev.delayq.spring;

import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * Health contributor {@code delayqOutbox} (Spring Boot 3.5): UP with the outbox's pending rows, the oldest one's age
 * and the relay's counts; DOWN when the relay is stopped, the database does not answer, or the relay's rounds have
 * failed for longer than {@code delayq.outbox.down-after}.
 */
public class DelayqOutboxHealthIndicator extends AbstractHealthIndicator {
    private final DelayqOutboxRelay relay;

    /** Reports on {@code relay}. */
    public DelayqOutboxHealthIndicator(DelayqOutboxRelay relay) {
        super("delayq outbox health check failed");
        this.relay = relay;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        DelayqOutboxHealthDetails.Report r = DelayqOutboxHealthDetails.of(relay);
        (r.up() ? builder.up() : builder.down()).withDetails(r.details());
    }
}
