package dev.delayq;

/**
 * What a recovery pass did.
 *
 * @param recovered        expired leases returned to the due set (the lost attempt counted, error "lease expired")
 * @param dead             expired leases that had used all attempts and went to dead
 * @param nextExpiryMillis the earliest lease still held (epoch ms, Redis clock), or -1 when none
 */
public record RecoverResult(int recovered, int dead, long nextExpiryMillis) {
}
