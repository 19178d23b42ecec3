package dev.delayq;

/**
 * A claim on one job: its id and the fencing token of the lease. Complete, fail, renew and release take it;
 * Redis refuses them when the token is no longer the job's current one.
 *
 * @param id    job id
 * @param token fencing token (monotonic per queue)
 */
public record Lease(String id, long token) {
}
