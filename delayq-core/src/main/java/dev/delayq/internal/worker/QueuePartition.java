package dev.delayq.internal.worker;

import dev.delayq.Ack;
import dev.delayq.ClaimBatch;
import dev.delayq.ClaimOptions;
import dev.delayq.FailResult;
import dev.delayq.Lease;
import dev.delayq.RenewResult;
import dev.delayq.internal.WorkerBeat;
import dev.delayq.internal.ops.Purge;
import dev.delayq.internal.queue.Partition;
import dev.delayq.internal.queue.QueueSchedules;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.trace.JobTracing;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The worker's view of a partition ({@link WorkerPartition}) over the queue's implementation, {@link Partition}:
 * the one class of the worker runtime that knows how a queue is stored. Each call is the queue's own, one to one (no
 * extra Redis call, nothing allocated per job).
 */
public final class QueuePartition implements WorkerPartition {
    private final Partition part;

    private QueuePartition(Partition part) {
        this.part = part;
    }

    /** The worker's view of {@code parts}, the partitions of a queue in order (the queue itself when it has none). */
    public static List<WorkerPartition> of(List<Partition> parts) {
        List<WorkerPartition> out = new ArrayList<>(parts.size());
        for (Partition p : parts) {
            out.add(new QueuePartition(p));
        }
        return List.copyOf(out);
    }

    @Override
    public String queue() {
        return part.name();
    }

    @Override
    public JobTracing tracing() {
        return part.settings().tracing();
    }

    @Override
    public int index() {
        return part.partition();
    }

    @Override
    public CompletableFuture<ClaimBatch> claim(ClaimOptions options) {
        return part.claimAsync(options);
    }

    @Override
    public CompletableFuture<List<Ack>> complete(List<Lease> leases) {
        return part.completeAllAsync(leases);
    }

    @Override
    public CompletableFuture<List<Ack>> complete(List<Lease> leases, java.util.Map<Lease, byte[]> results) {
        return part.completeAllAsync(leases, results);
    }

    @Override
    public CompletableFuture<java.util.Map<String, byte[]>> parentResults(String id) {
        return part.parentResultsAsync(id);
    }

    @Override
    public CompletableFuture<FailResult> fail(Lease lease, String error, boolean retryable, Duration backoff,
                                              int defaultMaxAttempts) {
        return part.failAsync(lease, error, retryable, backoff, defaultMaxAttempts);
    }

    @Override
    public CompletableFuture<RenewResult> renew(List<Lease> leases, Duration lease) {
        return part.renewAsync(leases, lease);
    }

    @Override
    public List<Ack> release(List<Lease> leases) {
        return part.backend().await(part.releaseAsync(leases), "release");
    }

    @Override
    public CompletableFuture<Ack> progress(Lease lease, String progress) {
        return part.progressAsync(lease, progress);
    }

    @Override
    public PurgeStep purgeStep(int jobs, long lockMillis, String owner) {
        Purge.Step s = part.purgeStep(part.settings().doneRetention().toMillis(), part.settings().deadRetention().toMillis(),
                jobs, lockMillis, owner);
        return new PurgeStep(s.done(), s.dead(), s.more(), s.lockedForMs());
    }

    @Override
    public Relayed relayNotices(long expiryMillis) {
        Partition.Relayed r = part.relayNotices(expiryMillis, NoticeRelay.STEPS);
        return new Relayed(r.applied(), r.expired(), r.putBack(), r.more());
    }

    @Override
    public long tickSchedules() {
        QueueSchedules.Pass pass = QueueSchedules.tick(part);
        return pass.wakeAtMillis() == Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(0, pass.wakeAtMillis() - pass.nowMillis());
    }

    @Override
    public CompletableFuture<?> beat(WorkerBeat beat, long ttlMillis) {
        return part.workerBeat(beat, ttlMillis);
    }

    @Override
    public CompletableFuture<?> gone(String id) {
        return part.workerGone(id);
    }

    @Override
    public AutoCloseable subscribeWakeUps(WakeUps listener) {
        return part.backend().subscribe(part.keys().wakeChannel(), new RedisBackend.Subscriber() {
            @Override
            public void onMessage(byte[] message) {
                long head;
                if (message.length == 1 && message[0] == 'n') {
                    listener.onNotices(); // written by deps_ended (lua/includes/deps.lua): not a due time
                    return;
                }
                try {
                    head = Long.parseLong(new String(message, StandardCharsets.US_ASCII));
                } catch (NumberFormatException e) {
                    listener.onReconnect(); // a notice that cannot be read is a notice missed
                    return;
                }
                listener.onHead(head);
            }

            @Override
            public void onReconnect() {
                listener.onReconnect();
            }
        });
    }

    @Override
    public AutoCloseable subscribeScheduleChanges(Runnable onChange) {
        return part.backend().subscribe(part.keys().schedulesChannel(), new RedisBackend.Subscriber() {
            @Override
            public void onMessage(byte[] message) {
                onChange.run();
            }

            @Override
            public void onReconnect() {
                onChange.run(); // notices may have been lost meanwhile
            }
        });
    }

    @Override
    public WorkerPartition onOwnConnection() {
        return new QueuePartition(part.on(part.backend().sibling()));
    }

    @Override
    public String toString() {
        return "partition " + part.partition() + " of queue " + part.name();
    }
}
