package dev.delayq;

/**
 * A claim on one job: its id, the fencing token of the lease, and the partition holding the job (0 for a
 * queue without partitions). Complete, fail, renew and release take it; Redis refuses them when the token is
 * no longer the job's current one.
 *
 * @param id        job id
 * @param token     fencing token (monotonic per queue partition)
 * @param partition the partition of the queue that holds the job
 */
public record Lease(String id, long token, int partition) {
    /** A lease on a job of a queue without partitions. */
    public Lease(String id, long token) {
        this(id, token, 0);
    }
}
