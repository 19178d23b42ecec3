package dev.delayq.internal.worker;

import static dev.delayq.internal.worker.TestWorker.SERVER_MS;
import static dev.delayq.internal.worker.TestWorker.job;
import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.ClaimBatch;
import dev.delayq.ClaimOptions;
import dev.delayq.ClaimedJob;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The claim loop on its own thread, over a fake partition and a fake ticker: it claims no more than its free slots,
 * dispatches what it leased and gives the other slots back, sleeps until a notice, a freed slot or its back-off's end
 * on the ticker wakes it.
 */
class ClaimLoopTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private TestWorker worker;
    private ClaimLoop loop;
    private Thread thread;
    private final List<ClaimedJob> dispatched = new CopyOnWriteArrayList<>();
    /** Every claim the loop sent. */
    private final List<FakePartition.Call<ClaimOptions, ClaimBatch>> sent = new CopyOnWriteArrayList<>();

    private void start(int concurrency) {
        worker = new TestWorker(TestWorker.config(concurrency, Duration.ofSeconds(30), Duration.ZERO, Duration.ofMillis(50),
                Duration.ofMillis(250)));
        loop = new ClaimLoop(worker.ctx, dispatched::add);
        thread = new Thread(loop, "test-claim");
        thread.setDaemon(true);
        loop.start(thread);
    }

    @AfterEach
    void stop() throws InterruptedException {
        loop.stop();
        worker.parts.get(0).claims.forEach(sent::add);
        sent.forEach(c -> c.answer().completeExceptionally(new IllegalStateException("stopped"))); // one may be in flight
        assertThat(loop.joinUntil(worker.ticker.nanos() + WAIT.toNanos())).isTrue();
    }

    /** The next claim the loop sends, once it has sent it. */
    private FakePartition.Call<ClaimOptions, ClaimBatch> nextClaim() {
        Awaitility.await().atMost(WAIT).until(() -> !worker.parts.get(0).claims.isEmpty());
        FakePartition.Call<ClaimOptions, ClaimBatch> c = worker.parts.get(0).claims.poll();
        sent.add(c);
        return c;
    }

    private void parked() {
        Awaitility.await().atMost(WAIT).until(() -> thread.getState() == Thread.State.TIMED_WAITING);
    }

    private static ClaimBatch leased(List<ClaimedJob> jobs, long nextDue) {
        return new ClaimBatch(jobs, SERVER_MS, nextDue, ClaimBatch.NONE, 0, 0, false, SERVER_MS * 1000, false, 0, false);
    }

    @Test
    void claimsAtMostItsFreeSlotsDispatchesWhatItLeasedAndGivesTheRestBack() {
        start(4);
        FakePartition.Call<ClaimOptions, ClaimBatch> claim = nextClaim();
        assertThat(claim.args().max()).isEqualTo(4);
        assertThat(claim.args().lease()).isEqualTo(Duration.ofSeconds(30));
        claim.answer().complete(leased(List.of(job(0, 1), job(0, 2)), ClaimBatch.NONE));
        Awaitility.await().atMost(WAIT).until(() -> dispatched.size() == 2);
        parked();
        assertThat(worker.ctx.gate().free()).isEqualTo(2);
        assertThat(worker.parts.get(0).claims).as("nothing is due: it sleeps").isEmpty();
    }

    @Test
    void aNoticeOfAJobDueNowWakesItAtOnce() {
        start(4);
        nextClaim().answer().complete(leased(List.of(), ClaimBatch.NONE));
        parked();
        assertThat(worker.parts.get(0).claims).isEmpty();
        loop.onHead(0, SERVER_MS);
        nextClaim();
    }

    @Test
    void withEverySlotBusyItWaitsForAFreedSlot() {
        start(2);
        nextClaim().answer().complete(leased(List.of(job(0, 1), job(0, 2)), ClaimBatch.NOT_COMPUTED)); // more are due
        Awaitility.await().atMost(WAIT).until(() -> dispatched.size() == 2);
        parked();
        assertThat(worker.parts.get(0).claims).isEmpty();
        worker.ctx.gate().freed(); // a handler finished
        assertThat(nextClaim().args().max()).isEqualTo(1);
    }

    @Test
    void aFailedClaimGivesItsSlotsBackAndIsRetriedAfterItsBackOffOnTheTicker() {
        start(4);
        nextClaim().answer().completeExceptionally(new IllegalStateException("connection reset"));
        parked();
        assertThat(worker.ctx.gate().free()).isEqualTo(4);
        assertThat(worker.metrics.count("redisError claim")).isEqualTo(1);
        assertThat(worker.parts.get(0).claims).as("not before its back-off").isEmpty();
        worker.ticker.advance(Duration.ofMillis(50)); // the first back-off is 25 to 50 ms
        nextClaim();
    }
}
