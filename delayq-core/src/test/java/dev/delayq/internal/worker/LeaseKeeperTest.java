package dev.delayq.internal.worker;

import static dev.delayq.internal.worker.TestWorker.SERVER_MS;
import static dev.delayq.internal.worker.TestWorker.job;
import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.Ack;
import dev.delayq.Lease;
import dev.delayq.RenewResult;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The lease keeper on a fake ticker and fake partitions: it renews every held lease (one call per partition per tick,
 * a third of the lease apart, so two renewals can fail before a lease runs out), takes the new expiry, reports a refused
 * renewal as a lost lease, and when Redis does not answer reports a job lost only once its lease has passed by Redis's
 * clock.
 */
class LeaseKeeperTest {
    private static final Duration LEASE = Duration.ofSeconds(3);

    private TestWorker worker;
    private LeaseKeeper keeper;

    private void start(int partitions) {
        worker = new TestWorker(partitions, TestWorker.config(8, LEASE, Duration.ofMillis(50), Duration.ofMillis(50),
                Duration.ofMillis(250)));
        keeper = new LeaseKeeper(worker.ctx);
    }

    private Running running(int p, long token) {
        Running r = worker.hold(job(p, token, null, SERVER_MS, SERVER_MS + LEASE.toMillis()));
        r.started = true;
        return r;
    }

    private FakePartition part(int p) {
        return worker.parts.get(p);
    }

    @Test
    void renewsAThirdOfTheLeaseApartSoTwoRenewalsMayFailBeforeALeaseRunsOut() {
        assertThat(LeaseKeeper.periodMillis(LEASE)).isEqualTo(1000);
        assertThat(LeaseKeeper.periodMillis(Duration.ofSeconds(30))).isEqualTo(10_000);
        assertThat(LeaseKeeper.periodMillis(Duration.ofMillis(100))).isEqualTo(33);
    }

    @Test
    void renewsEveryHeldLeaseInOneCallAndTakesTheNewExpiry() {
        start(1);
        Running a = running(0, 1);
        Running b = running(0, 2);
        running(0, 3).markLost();
        running(0, 4).released = true;
        keeper.tick();
        assertThat(part(0).renewals).hasSize(1);
        FakePartition.Call<FakePartition.RenewArgs, RenewResult> call = part(0).renewals.poll();
        assertThat(call.args().lease()).isEqualTo(LEASE);
        assertThat(call.args().leases()).extracting(Lease::id).containsExactlyInAnyOrder("j1", "j2");
        List<Ack> acks = call.args().leases().stream().map(l -> Ack.OK).toList();
        call.answer().complete(new RenewResult(SERVER_MS + 4000, acks));
        assertThat(a.leaseUntilMillis).isEqualTo(SERVER_MS + 4000);
        assertThat(b.leaseUntilMillis).isEqualTo(SERVER_MS + 4000);
        assertThat(a.leaseLost()).isFalse();
        assertThat(worker.metrics.count("leaseLost")).isZero();
    }

    @Test
    void aRefusedRenewalReportsTheRunningJobsLeaseLostButNotAFinishedJobs() {
        start(1);
        Running a = running(0, 1);
        keeper.tick();
        FakePartition.Call<FakePartition.RenewArgs, RenewResult> call = part(0).renewals.poll();
        call.answer().complete(new RenewResult(SERVER_MS + 4000, List.of(Ack.STALE)));
        assertThat(a.leaseLost()).isTrue();
        assertThat(worker.metrics.count("leaseLost")).isEqualTo(1);

        Running done = running(0, 2);
        keeper.tick();
        done.finished = true; // its completion landed before the renewal
        part(0).renewals.poll().answer().complete(new RenewResult(SERVER_MS + 4000, List.of(Ack.NOT_FOUND)));
        assertThat(done.leaseLost()).isFalse();
        assertThat(worker.metrics.count("leaseLost")).isEqualTo(1);
    }

    @Test
    void whenRedisDoesNotAnswerAJobIsLostOnlyOnceItsLeaseHasPassedByRedissClock() {
        start(1);
        Running r = running(0, 1);
        keeper.tick();
        part(0).renewals.poll().answer().completeExceptionally(new IllegalStateException("timeout"));
        assertThat(worker.metrics.count("redisError renew")).isEqualTo(1);
        assertThat(r.leaseLost()).as("its lease runs until +3 s").isFalse();
        worker.ticker.advance(LEASE);
        keeper.tick();
        part(0).renewals.poll().answer().completeExceptionally(new IllegalStateException("timeout"));
        assertThat(r.leaseLost()).as("at the expiry, not past it").isFalse();
        worker.ticker.advance(Duration.ofMillis(1));
        keeper.tick();
        part(0).renewals.poll().answer().completeExceptionally(new IllegalStateException("timeout"));
        assertThat(r.leaseLost()).isTrue();
        assertThat(worker.metrics.count("leaseLost")).isEqualTo(1);
    }

    @Test
    void oneRenewalIsInFlightAtATime() {
        start(1);
        running(0, 1);
        keeper.tick();
        keeper.tick();
        assertThat(part(0).renewals).hasSize(1);
        part(0).renewals.poll().answer().complete(new RenewResult(SERVER_MS + 4000, List.of(Ack.OK)));
        keeper.tick();
        assertThat(part(0).renewals).hasSize(1);
    }

    @Test
    void nothingHeldNothingSent() {
        start(1);
        keeper.tick();
        assertThat(part(0).renewals).isEmpty();
    }

    @Test
    void eachPartitionRenewsItsOwnLeases() {
        start(2);
        Running a = running(0, 1);
        Running b = running(1, 1); // tokens are unique only within a partition
        keeper.tick();
        assertThat(part(0).renewals).hasSize(1);
        assertThat(part(1).renewals).hasSize(1);
        assertThat(part(0).renewals.peek().args().leases()).containsExactly(a.lease());
        assertThat(part(1).renewals.peek().args().leases()).containsExactly(b.lease());
        part(1).renewals.poll().answer().complete(new RenewResult(SERVER_MS + 5000, List.of(Ack.STALE)));
        part(0).renewals.poll().answer().complete(new RenewResult(SERVER_MS + 4000, List.of(Ack.OK)));
        assertThat(a.leaseUntilMillis).isEqualTo(SERVER_MS + 4000);
        assertThat(a.leaseLost()).isFalse();
        assertThat(b.leaseLost()).isTrue();
    }
}
