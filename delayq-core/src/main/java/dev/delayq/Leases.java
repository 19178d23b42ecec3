package dev.delayq;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The primitives a {@link Worker} is built on, for custom runtimes: lease due jobs, then complete, fail,
 * renew or hand back each lease. Every call is one Lua script; complete, fail, renew and release are fenced
 * by the lease's token, so a stale holder can never change a job someone else now holds. Obtain it from
 * {@link JobQueue#leases()}; thread-safe.
 */
public interface Leases {
    /**
     * Leases up to {@code options.max()} due jobs: removes them from the due set, sets them processing with
     * attempt + 1, a lease expiring after {@code options.lease()} and a fresh fencing token. Expired leases
     * are recovered first. When fewer jobs are due than asked, the result names the next wake time.
     */
    ClaimBatch claim(ClaimOptions options);

    /** {@link #claim} without blocking. */
    CompletableFuture<ClaimBatch> claimAsync(ClaimOptions options);

    /** Completes one job; refused ({@link Ack#STALE}) unless {@code lease} is the job's current lease. */
    default Ack complete(Lease lease) {
        return complete(lease, null);
    }

    /**
     * Completes one job and leaves {@code result} with it, in the same script ({@link JobContext#result(byte[])}: kept
     * with the done job for the client's done retention, none without it); refused as {@link #complete(Lease)} is.
     *
     * @throws IllegalArgumentException when {@code result} is longer than {@link Bounds#MAX_RESULT_BYTES} (64 KiB)
     */
    Ack complete(Lease lease, byte[] result);

    /** Completes many jobs in one script; one answer per lease, each fenced by its own token. */
    CompletableFuture<List<Ack>> completeAllAsync(List<Lease> leases);

    /**
     * Records a failed attempt: the job is retried after {@code backoff} when {@code retryable} and it has
     * attempts left, else it goes to dead; {@code error} (cut to 2 KiB) is kept either way.
     */
    FailResult fail(Lease lease, String error, boolean retryable, Duration backoff);

    /** {@link #fail} without blocking. */
    CompletableFuture<FailResult> failAsync(Lease lease, String error, boolean retryable, Duration backoff);

    /** Extends leases to now + {@code lease}; each refused when its token is stale (the holder must stop). */
    RenewResult renew(List<Lease> leases, Duration lease);

    /** {@link #renew} without blocking. */
    CompletableFuture<RenewResult> renewAsync(List<Lease> leases, Duration lease);

    /**
     * Hands leased jobs back unfinished (graceful shutdown): each is due again at once (at its original
     * due time) and the attempt is not counted.
     */
    List<Ack> release(List<Lease> leases);

    /**
     * Recovers up to {@code limit} expired leases without claiming: each job is rescheduled with the
     * policy's backoff (the lost attempt counts, error "lease expired") or goes to dead.
     */
    RecoverResult recover(int limit, RetryPolicy policy);

    /**
     * Records the progress of the job of {@code lease} (a percentage or a small JSON text, at most 4 KiB), shown by
     * {@link JobQueue#get(String)} while it runs; refused ({@link Ack#STALE}) once the lease is lost.
     */
    CompletableFuture<Ack> progressAsync(Lease lease, String progress);
}
