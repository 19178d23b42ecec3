package dev.delayq.internal.worker;

import dev.delayq.Ack;
import dev.delayq.ClaimBatch;
import dev.delayq.ClaimOptions;
import dev.delayq.FailResult;
import dev.delayq.Lease;
import dev.delayq.RenewResult;
import dev.delayq.internal.WorkerBeat;
import dev.delayq.internal.trace.JobTracing;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What the worker needs of one partition of its queue (a queue without partitions is one): the worker's whole view of
 * Redis. The runtime's parts see the queue only through this interface (BullMQ's lock manager sees its worker through
 * a context of its own), so they are unit-tested with a fake of it; {@link QueuePartition} is the one adapter
 * over the queue's implementation.
 *
 * <p>Expired leases are recovered by the claim (its reply counts them): there is no separate recovery call. The
 * asynchronous calls never throw: a failure fails the future.
 */
public interface WorkerPartition {
    /** The queue's name (of the whole queue, not of the partition). */
    String queue();

    /** This partition's number, from 0 (the {@link Lease#partition()} of the jobs it leases). */
    int index();

    /** Leases due jobs (and recovers expired leases) as the options say. */
    CompletableFuture<ClaimBatch> claim(ClaimOptions options);

    /** Completes jobs of this partition, each checked against its fencing token; one answer per lease, in order. */
    CompletableFuture<List<Ack>> complete(List<Lease> leases);

    /**
     * As {@link #complete(List)}, where {@code results} (or {@code null}: none) maps a lease to the result its handler left.
     */
    default CompletableFuture<List<Ack>> complete(List<Lease> leases, java.util.Map<Lease, byte[]> results) {
        if (results != null) {
            return CompletableFuture.failedFuture(new UnsupportedOperationException("this partition keeps no results"));
        }
        return complete(leases);
    }

    /** The results of job {@code id}'s parents that are still kept: parent id to result, in the order it named them. */
    default CompletableFuture<java.util.Map<String, byte[]>> parentResults(String id) {
        return CompletableFuture.completedFuture(java.util.Map.of());
    }

    /** Records a failed run (retried or dead); jobs without max attempts of their own use {@code defaultMaxAttempts}. */
    CompletableFuture<FailResult> fail(Lease lease, String error, boolean retryable, Duration backoff, int defaultMaxAttempts);

    /** Extends leases of this partition by {@code lease}; one answer per lease, in order. */
    CompletableFuture<RenewResult> renew(List<Lease> leases, Duration lease);

    /** Hands jobs back (due again at once, attempt not counted), waiting for the answer; one per lease, in order. */
    List<Ack> release(List<Lease> leases);

    /** Records a running job's progress, fenced by its lease. */
    CompletableFuture<Ack> progress(Lease lease, String progress);

    /**
     * One bounded step of the retention purge (at most {@code jobs} jobs past the queue's retention), under the
     * partition's purge lock held for {@code owner} for {@code lockMillis}; waits for the answer.
     */
    PurgeStep purgeStep(int jobs, long lockMillis, String owner);

    /**
     * One pass over this partition's outbox of notices to children waiting in other queues or partitions (a parent of
     * theirs here has ended): each applied to its child and acknowledged; a notice whose child does not exist yet is
     * kept, and dropped once older than {@code expiryMillis}. Bounded; waits for the answers.
     */
    Relayed relayNotices(long expiryMillis);

    /**
     * Advances every due recurring schedule of this partition, waiting for the answer; returns how long (ms, Redis's
     * clock) until its next pending tick is due, or {@link Long#MAX_VALUE} when none is pending.
     */
    long tickSchedules();

    /**
     * Subscribes to the partition's wake-up notices (an earlier job became the head of the due set); closing the result
     * unsubscribes.
     *
     * @throws RuntimeException when the subscription cannot be made
     */
    AutoCloseable subscribeWakeUps(WakeUps listener);

    /**
     * Subscribes to notices that a schedule of the partition was added, changed or removed; {@code onChange} runs on
     * each, and after a reconnection (notices may have been missed). Closing the result unsubscribes.
     *
     * @throws RuntimeException when the subscription cannot be made
     */
    AutoCloseable subscribeScheduleChanges(Runnable onChange);

    /**
     * Records the worker's heartbeat in the queue's worker registry (one per queue, whichever partition is asked), live
     * for {@code ttlMillis} by Redis's clock.
     */
    CompletableFuture<?> beat(WorkerBeat beat, long ttlMillis);

    /** Removes the worker {@code id} from the queue's worker registry at once (its graceful close). */
    CompletableFuture<?> gone(String id);

    /**
     * This partition over a connection of its own (slow calls on it delay nothing else the worker does); opened by this
     * call.
     */
    WorkerPartition onOwnConnection();

    /** The spans of the worker's attempts: the client's ({@link JobTracing#OFF} unless OpenTelemetry was given). */
    default JobTracing tracing() {
        return JobTracing.OFF;
    }

    /** Receives wake-up notices. Runs on the connection's I/O thread: must not block. */
    interface WakeUps {
        /** An earlier job, due at {@code headMillis} (Redis's clock), is now the head of the due set. */
        void onHead(long headMillis);

        /** Notices may have been missed (the connection came back, or a notice could not be read). */
        void onReconnect();

        /** A parent of this partition ended with children in other key sets: its outbox has notices to relay. */
        default void onNotices() {
            onReconnect();
        }
    }

    /**
     * What one purge step did.
     *
     * @param done        done jobs deleted
     * @param dead        dead jobs deleted
     * @param more        a limit was hit: step again
     * @param lockedForMs &gt; 0 when another worker holds the purge lock (nothing was done)
     */
    record PurgeStep(long done, long dead, boolean more, long lockedForMs) {
    }

    /**
     * What one pass of {@link #relayNotices} did.
     *
     * @param applied notices that counted a parent for a waiting child
     * @param expired notices dropped unapplied: their child never came to exist (or the notice could not be read)
     * @param putBack notices put back to try again later: their child does not exist (yet)
     * @param more    the pass stopped at its bound with notices left: pass again
     */
    record Relayed(long applied, long expired, long putBack, boolean more) {
    }
}
