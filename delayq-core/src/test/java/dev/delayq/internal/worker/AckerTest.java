package dev.delayq.internal.worker;

import static dev.delayq.internal.worker.TestWorker.SERVER_MS;
import static dev.delayq.internal.worker.TestWorker.job;
import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.Ack;
import dev.delayq.FailResult;
import dev.delayq.Lease;
import dev.delayq.RetryPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The acknowledger on a fake ticker and fake partitions: a completion waits at most the linger for company, a full
 * batch goes at once, one call is in flight at a time and the next carries what came meanwhile, a failed call is
 * retried after its back-off (a re-sent completion that finds no job was applied by the first), refusals are lost
 * leases, failures go one by one and are retried too, and a partitioned queue gets one call per partition.
 */
class AckerTest {
    private TestWorker worker;
    private ManualScheduler timer;
    private Acker acker;

    private void start(int partitions, Duration linger) {
        worker = new TestWorker(partitions, TestWorker.config(8, Duration.ofSeconds(30), Duration.ofMillis(50), linger,
                Duration.ofMillis(250)));
        timer = new ManualScheduler(worker.ticker);
        acker = new Acker(worker.ctx, timer);
    }

    private FakePartition part(int p) {
        return worker.parts.get(p);
    }

    private Running done(int p, long token) {
        Running r = worker.hold(job(p, token));
        r.acking = true;
        return r;
    }

    private static List<String> ids(List<Lease> leases) {
        return leases.stream().map(Lease::id).toList();
    }

    @Test
    void aCompletionWaitsAtMostTheLingerForCompany() {
        start(1, Duration.ofMillis(50));
        acker.complete(done(0, 1));
        assertThat(part(0).completes).isEmpty();
        assertThat(timer.nextDelayNanos()).isEqualTo(Duration.ofMillis(50).toNanos());
        worker.ticker.advance(Duration.ofMillis(20));
        acker.complete(done(0, 2));
        assertThat(timer.pending()).as("one linger timer for both").isEqualTo(1);
        worker.ticker.advance(Duration.ofMillis(29));
        assertThat(timer.runDue()).isZero();
        assertThat(part(0).completes).isEmpty();
        worker.ticker.advance(Duration.ofMillis(1));
        timer.runDue();
        assertThat(part(0).completes).hasSize(1);
        FakePartition.Call<List<Lease>, List<Ack>> call = part(0).completes.poll();
        assertThat(ids(call.args())).containsExactly("j1", "j2");
        assertThat(acker.idle()).isFalse();
        call.answer().complete(List.of(Ack.OK, Ack.OK));
        assertThat(worker.outcomes).containsExactly("j1: COMPLETED", "j2: COMPLETED");
        assertThat(worker.metrics.count("completed")).isEqualTo(2);
        assertThat(worker.ctx.inFlight().isEmpty()).isTrue();
        assertThat(acker.idle()).isTrue();
    }

    @Test
    void withoutLingerACompletionGoesAtOnce() {
        start(1, Duration.ZERO);
        acker.complete(done(0, 1));
        assertThat(part(0).completes).hasSize(1);
        assertThat(timer.pending()).isZero();
    }

    @Test
    void aFullBatchGoesAtOnceWithoutWaitingForTheLinger() {
        start(1, Duration.ofMillis(50));
        for (int i = 1; i < 1000; i++) {
            acker.complete(done(0, i));
        }
        assertThat(part(0).completes).isEmpty();
        acker.complete(done(0, 1000));
        assertThat(part(0).completes).hasSize(1);
        assertThat(part(0).completes.peek().args()).hasSize(1000);
    }

    @Test
    void oneCallIsInFlightAtATimeAndTheNextCarriesWhatCameMeanwhile() {
        start(1, Duration.ZERO);
        acker.complete(done(0, 1));
        acker.complete(done(0, 2));
        acker.complete(done(0, 3));
        assertThat(part(0).completes).hasSize(1);
        FakePartition.Call<List<Lease>, List<Ack>> first = part(0).completes.poll();
        assertThat(ids(first.args())).containsExactly("j1");
        first.answer().complete(List.of(Ack.OK));
        assertThat(part(0).completes).hasSize(1);
        FakePartition.Call<List<Lease>, List<Ack>> second = part(0).completes.poll();
        assertThat(ids(second.args())).containsExactly("j2", "j3");
        second.answer().complete(List.of(Ack.OK, Ack.OK));
        assertThat(acker.idle()).isTrue();
    }

    @Test
    void drainingSendsAtOnce() {
        start(1, Duration.ofMillis(50));
        acker.complete(done(0, 1));
        assertThat(part(0).completes).isEmpty();
        acker.drain();
        assertThat(part(0).completes).hasSize(1);
        acker.complete(done(0, 2));
        part(0).completes.poll().answer().complete(List.of(Ack.OK));
        assertThat(part(0).completes).hasSize(1);
    }

    @Test
    void aFailedCallIsRetriedAfterItsBackOffAndAResentCompletionThatFindsNoJobWasApplied() {
        start(1, Duration.ZERO);
        acker.complete(done(0, 1));
        part(0).completes.poll().answer().completeExceptionally(new IllegalStateException("connection reset"));
        assertThat(worker.metrics.count("redisError complete")).isEqualTo(1);
        assertThat(part(0).completes).as("not at once").isEmpty();
        assertThat(acker.idle()).isFalse();
        assertThat(timer.nextDelayNanos()).isBetween(Duration.ofMillis(25).toNanos(), Duration.ofMillis(50).toNanos());
        worker.ticker.advance(Duration.ofMillis(50));
        timer.runDue();
        assertThat(part(0).completes).hasSize(1);
        FakePartition.Call<List<Lease>, List<Ack>> again = part(0).completes.poll();
        assertThat(ids(again.args())).containsExactly("j1");
        again.answer().complete(List.of(Ack.NOT_FOUND)); // the first call applied and the job was deleted since
        assertThat(worker.outcomes).containsExactly("j1: COMPLETED");
        assertThat(worker.metrics.count("leaseLost")).isZero();
        assertThat(acker.idle()).isTrue();
    }

    @Test
    void aRefusedCompletionIsALostLease() {
        start(1, Duration.ZERO);
        acker.complete(done(0, 1));
        part(0).completes.poll().answer().complete(List.of(Ack.STALE));
        assertThat(worker.outcomes).containsExactly("j1: REFUSED");
        assertThat(worker.metrics.count("leaseLost")).isEqualTo(1);
        assertThat(worker.metrics.count("completed")).isZero();
    }

    @Test
    void failuresGoOneByOneWithTheWorkersDefaultMaxAttemptsAndAreRetriedWhenTheCallFails() {
        start(1, Duration.ofMillis(50));
        Running r = done(0, 7);
        acker.fail(r, "boom", true, Duration.ofSeconds(3));
        assertThat(part(0).fails).hasSize(1);
        FakePartition.Call<FakePartition.FailArgs, FailResult> call = part(0).fails.poll();
        assertThat(call.args()).isEqualTo(new FakePartition.FailArgs(r.lease(), "boom", true, Duration.ofSeconds(3),
                RetryPolicy.defaults().maxAttempts()));
        call.answer().completeExceptionally(new IllegalStateException("timeout"));
        assertThat(worker.metrics.count("redisError fail")).isEqualTo(1);
        assertThat(acker.idle()).isFalse();
        worker.ticker.advance(Duration.ofMillis(50));
        timer.runDue();
        assertThat(part(0).fails).hasSize(1);
        part(0).fails.poll().answer().complete(new FailResult(FailResult.Outcome.RETRY_SCHEDULED, SERVER_MS + 3000));
        assertThat(worker.outcomes).containsExactly("j7: RETRY_SCHEDULED");
        assertThat(worker.metrics.count("retried")).isEqualTo(1);
        assertThat(worker.ctx.inFlight().isEmpty()).isTrue();
        assertThat(acker.idle()).isTrue();
    }

    @Test
    void aPartitionedQueueGetsOneCallPerPartitionAndEachAnswerReachesItsJob() {
        start(2, Duration.ofMillis(50));
        acker.complete(done(0, 1));
        acker.complete(done(1, 2));
        acker.complete(done(0, 3));
        worker.ticker.advance(Duration.ofMillis(50));
        timer.runDue();
        assertThat(part(0).completes).hasSize(1);
        assertThat(part(1).completes).hasSize(1);
        FakePartition.Call<List<Lease>, List<Ack>> zero = part(0).completes.poll();
        FakePartition.Call<List<Lease>, List<Ack>> one = part(1).completes.poll();
        assertThat(ids(zero.args())).containsExactly("j1", "j3");
        assertThat(ids(one.args())).containsExactly("j2");
        one.answer().complete(List.of(Ack.OK));
        assertThat(worker.outcomes).as("the batch is answered when every partition has").isEmpty();
        zero.answer().complete(List.of(Ack.OK, Ack.STALE));
        List<String> outcomes = new ArrayList<>(worker.outcomes);
        assertThat(outcomes).containsExactlyInAnyOrder("j1: COMPLETED", "j2: COMPLETED", "j3: REFUSED");
    }
}
