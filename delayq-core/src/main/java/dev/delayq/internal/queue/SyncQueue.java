package dev.delayq.internal.queue;

import dev.delayq.Ack;
import dev.delayq.ClaimBatch;
import dev.delayq.ClaimOptions;
import dev.delayq.EnqueueResult;
import dev.delayq.FailResult;
import dev.delayq.Job;
import dev.delayq.Lease;
import dev.delayq.JobQueue;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.Leases;
import dev.delayq.RenewResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The blocking forms of a {@link JobQueue}'s operations, each waiting for its asynchronous form through the
 * backend (which bounds the wait and translates failures into delayq's exceptions).
 */
abstract class SyncQueue implements JobQueue, Leases {
    private final RedisBackend redis;

    SyncQueue(RedisBackend redis) {
        this.redis = redis;
    }

    /** Releases leases without blocking. */
    abstract CompletableFuture<List<Ack>> releaseAsync(List<Lease> leases);

    @Override
    public Leases leases() {
        return this;
    }

    @Override
    public EnqueueResult enqueue(Job job) {
        return redis.await(enqueueAsync(job), "enqueue");
    }

    @Override
    public CompletableFuture<EnqueueResult> enqueueAsync(Job job) {
        return enqueueAllAsync(List.of(job)).thenApply(r -> r.get(0));
    }

    @Override
    public List<EnqueueResult> enqueueAll(List<Job> jobs) {
        return redis.await(enqueueAllAsync(jobs), "enqueue");
    }

    @Override
    public ClaimBatch claim(ClaimOptions options) {
        return redis.await(claimAsync(options), "claim");
    }

    @Override
    public Ack complete(Lease lease) {
        return redis.await(completeAllAsync(List.of(lease)), "complete").get(0);
    }

    @Override
    public FailResult fail(Lease lease, String error, boolean retryable, Duration backoff) {
        return redis.await(failAsync(lease, error, retryable, backoff), "fail");
    }

    @Override
    public RenewResult renew(List<Lease> leases, Duration lease) {
        return redis.await(renewAsync(leases, lease), "renew");
    }

    @Override
    public List<Ack> release(List<Lease> leases) {
        return redis.await(releaseAsync(leases), "release");
    }
}
