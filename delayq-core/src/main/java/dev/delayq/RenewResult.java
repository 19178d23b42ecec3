package dev.delayq;

import java.util.List;

/**
 * The result of renewing a batch of leases.
 *
 * @param leaseUntilMillis the new expiry of every renewed lease (epoch ms, Redis clock)
 * @param acks             one answer per lease, in order: {@link Ack#OK}, or {@link Ack#STALE} /
 *                         {@link Ack#NOT_FOUND} when the lease is lost and its holder must stop
 */
public record RenewResult(long leaseUntilMillis, List<Ack> acks) {
}
