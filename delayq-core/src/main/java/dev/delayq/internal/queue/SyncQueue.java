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
import java.util.function.Supplier;
import dev.delayq.internal.Validation;

/**
 * The blocking forms of a {@link JobQueue}'s operations, each waiting for its asynchronous form through the
 * backend (which bounds the wait and translates failures into delayq's exceptions).
 */
abstract class SyncQueue implements JobQueue, Leases {
    private final RedisBackend redis;

    SyncQueue(RedisBackend redis) {
        this.redis = redis;
    }

    // The operations, as the subclasses start them; they may throw on bad input, which the public async forms turn
    // into failed futures (an async method never throws).

    abstract CompletableFuture<List<EnqueueResult>> startEnqueueAll(List<Job> jobs);

    abstract CompletableFuture<ClaimBatch> startClaim(ClaimOptions options);

    abstract CompletableFuture<List<Ack>> startComplete(List<Lease> leases);

    abstract CompletableFuture<FailResult> startFail(Lease lease, String error, boolean retryable, Duration backoff);

    abstract CompletableFuture<RenewResult> startRenew(List<Lease> leases, Duration lease);

    abstract CompletableFuture<List<Ack>> startRelease(List<Lease> leases);

    /** Runs {@code start}, failing the future (never throwing) when it throws. */
    static <T> CompletableFuture<T> guard(Supplier<CompletableFuture<T>> start) {
        try {
            return start.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public Leases leases() {
        return this;
    }

    @Override
    public dev.delayq.Schedules schedules() {
        return new CheckedSchedules(new QueueSchedules(name(),
                this instanceof PartitionedQueue p ? p.partitions() : List.of((SingleQueue) this)));
    }

    @Override
    public final CompletableFuture<List<EnqueueResult>> enqueueAllAsync(List<Job> jobs) {
        return guard(() -> {
            if (jobs == null) {
                throw new IllegalArgumentException("jobs must not be null");
            }
            return startEnqueueAll(jobs);
        });
    }

    @Override
    public final CompletableFuture<EnqueueResult> enqueueAsync(Job job) {
        return guard(() -> {
            if (job == null) {
                throw new IllegalArgumentException("job must not be null");
            }
            return startEnqueueAll(List.of(job)).thenApply(r -> r.get(0));
        });
    }

    @Override
    public final CompletableFuture<ClaimBatch> claimAsync(ClaimOptions options) {
        return guard(() -> {
            if (options == null) {
                throw new IllegalArgumentException("claim options must not be null");
            }
            return startClaim(options);
        });
    }

    @Override
    public final CompletableFuture<List<Ack>> completeAllAsync(List<Lease> leases) {
        return guard(() -> startComplete(checkLeases(leases)));
    }

    @Override
    public final CompletableFuture<FailResult> failAsync(Lease lease, String error, boolean retryable, Duration backoff) {
        return guard(() -> {
            if (lease == null) {
                throw new IllegalArgumentException("lease must not be null");
            }
            Validation.delay("backoff", backoff);
            return startFail(lease, error, retryable, backoff);
        });
    }

    @Override
    public final CompletableFuture<RenewResult> renewAsync(List<Lease> leases, Duration lease) {
        return guard(() -> {
            Validation.positive("lease", lease);
            return startRenew(checkLeases(leases), lease);
        });
    }

    /** Releases leases without blocking. */
    final CompletableFuture<List<Ack>> releaseAsync(List<Lease> leases) {
        return guard(() -> startRelease(checkLeases(leases)));
    }

    private static List<Lease> checkLeases(List<Lease> leases) {
        if (leases == null) {
            throw new IllegalArgumentException("leases must not be null");
        }
        for (Lease l : leases) { // List.of(...).contains(null) would throw
            if (l == null) {
                throw new IllegalArgumentException("leases must not contain null");
            }
        }
        return leases;
    }

    @Override
    public EnqueueResult enqueue(Job job) {
        return redis.await(enqueueAsync(job), "enqueue");
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
        return redis.await(completeAllAsync(java.util.Collections.singletonList(lease)), "complete").get(0);
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
