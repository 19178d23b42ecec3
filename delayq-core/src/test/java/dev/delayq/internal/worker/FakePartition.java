package dev.delayq.internal.worker;

import dev.delayq.Ack;
import dev.delayq.ClaimBatch;
import dev.delayq.ClaimOptions;
import dev.delayq.FailResult;
import dev.delayq.Lease;
import dev.delayq.RenewResult;
import dev.delayq.internal.WorkerBeat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;

/**
 * A partition in memory for the worker's unit tests: every asynchronous call is recorded with a future that the test
 * answers (so a call can be left in flight), the blocking ones answer at once as the test set them up.
 */
final class FakePartition implements WorkerPartition {
    /** A call made, and the future its caller waits on. */
    record Call<A, R>(A args, CompletableFuture<R> answer) {
    }

    record FailArgs(Lease lease, String error, boolean retryable, Duration backoff, int defaultMaxAttempts) {
    }

    record RenewArgs(List<Lease> leases, Duration lease) {
    }

    record BeatArgs(WorkerBeat beat, long ttlMillis) {
    }

    private final int index;
    final ConcurrentLinkedQueue<Call<ClaimOptions, ClaimBatch>> claims = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<Call<List<Lease>, List<Ack>>> completes = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<Call<FailArgs, FailResult>> fails = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<Call<RenewArgs, RenewResult>> renewals = new ConcurrentLinkedQueue<>();
    final List<List<Lease>> released = new ArrayList<>();
    final ConcurrentLinkedQueue<Call<BeatArgs, Object>> beats = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<Call<String, Object>> goodbyes = new ConcurrentLinkedQueue<>();
    /** What a release answers (every lease OK by default). */
    volatile Function<List<Lease>, List<Ack>> releaseAnswer = leases -> leases.stream().map(l -> Ack.OK).toList();

    FakePartition(int index) {
        this.index = index;
    }

    @Override
    public String queue() {
        return "q";
    }

    @Override
    public int index() {
        return index;
    }

    @Override
    public CompletableFuture<ClaimBatch> claim(ClaimOptions options) {
        return record(claims, options);
    }

    @Override
    public CompletableFuture<List<Ack>> complete(List<Lease> leases) {
        return record(completes, List.copyOf(leases));
    }

    @Override
    public CompletableFuture<FailResult> fail(Lease lease, String error, boolean retryable, Duration backoff,
                                              int defaultMaxAttempts) {
        return record(fails, new FailArgs(lease, error, retryable, backoff, defaultMaxAttempts));
    }

    @Override
    public CompletableFuture<RenewResult> renew(List<Lease> leases, Duration lease) {
        return record(renewals, new RenewArgs(List.copyOf(leases), lease));
    }

    @Override
    public synchronized List<Ack> release(List<Lease> leases) {
        released.add(List.copyOf(leases));
        return releaseAnswer.apply(leases);
    }

    @Override
    public CompletableFuture<Ack> progress(Lease lease, String progress) {
        return CompletableFuture.completedFuture(Ack.OK);
    }

    @Override
    public PurgeStep purgeStep(int jobs, long lockMillis, String owner) {
        return new PurgeStep(0, 0, false, 0);
    }

    @Override
    public Relayed relayNotices(long expiryMillis) {
        return new Relayed(0, 0, 0, false);
    }

    @Override
    public long tickSchedules() {
        return Long.MAX_VALUE;
    }

    @Override
    public CompletableFuture<?> beat(WorkerBeat beat, long ttlMillis) {
        return record(beats, new BeatArgs(beat, ttlMillis));
    }

    @Override
    public CompletableFuture<?> gone(String id) {
        return record(goodbyes, id);
    }

    @Override
    public AutoCloseable subscribeWakeUps(WakeUps listener) {
        return () -> { };
    }

    @Override
    public AutoCloseable subscribeScheduleChanges(Runnable onChange) {
        return () -> { };
    }

    @Override
    public WorkerPartition onOwnConnection() {
        return this;
    }

    private static <A, R> CompletableFuture<R> record(ConcurrentLinkedQueue<Call<A, R>> calls, A args) {
        CompletableFuture<R> f = new CompletableFuture<>();
        calls.add(new Call<>(args, f));
        return f;
    }
}
