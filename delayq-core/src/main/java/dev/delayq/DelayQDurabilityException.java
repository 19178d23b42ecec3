package dev.delayq;

/**
 * An enqueue was applied by Redis but not confirmed as durable within the {@link Durability} timeout: the
 * job exists, but a crash or failover could still lose it. Enqueueing it again with the same id is safe.
 */
public class DelayQDurabilityException extends DelayQException {
    /** An error with a message. */
    public DelayQDurabilityException(String message) {
        super(message);
    }
}
