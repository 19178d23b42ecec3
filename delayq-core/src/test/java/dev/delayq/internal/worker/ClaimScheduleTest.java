package dev.delayq.internal.worker;

import static dev.delayq.internal.worker.TestWorker.SERVER_MS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.ClaimBatch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * When the claim loop claims next, on a fake ticker: at the due time a claim reports (a lookahead sooner, never sooner
 * than half a lookahead; a standby later when another worker covers it), at the rate limit's time, at a lease's
 * expiry, after a back-off, at once on a full batch, a notice or a reconnection, and from the partitions in turn.
 */
class ClaimScheduleTest {
    private static final long MS = 1_000_000L;

    private TestWorker worker;
    private ClaimSchedule schedule;

    private void start(int partitions, Duration lookahead) {
        WorkerConfig config = TestWorker.config(8, Duration.ofSeconds(30), lookahead, Duration.ofMillis(50),
                Duration.ofMillis(250));
        worker = new TestWorker(partitions, config);
        schedule = new ClaimSchedule(worker.ctx.clocks(), config, worker.ticker);
    }

    private long now() {
        return worker.ticker.nanos();
    }

    /** A claim's reply that leased nothing, with the next due time and lease expiry in ms from Redis's now (-1: none). */
    private static ClaimBatch reply(long dueInMs, long expiryInMs, boolean covered, boolean limited) {
        return new ClaimBatch(List.of(), SERVER_MS, dueInMs < 0 ? ClaimBatch.NONE : SERVER_MS + dueInMs,
                expiryInMs < 0 ? ClaimBatch.NONE : SERVER_MS + expiryInMs, 0, 0, covered, SERVER_MS * 1000, false, 0, limited);
    }

    private static ClaimBatch full() {
        return new ClaimBatch(List.of(), SERVER_MS, ClaimBatch.NOT_COMPUTED, ClaimBatch.NONE, 0, 0, false, SERVER_MS * 1000,
                false, 0, false);
    }

    /** Claims once from whichever partition {@code next} picks, and plans it from {@code reply}; returns the partition. */
    private int claim(ClaimBatch reply) {
        int p = schedule.next(now());
        assertThat(p).as("a partition is due").isGreaterThanOrEqualTo(0);
        schedule.claiming(p);
        schedule.plan(p, reply);
        return p;
    }

    @Test
    void aNewScheduleClaimsAtOnce() {
        start(1, Duration.ofMillis(50));
        assertThat(schedule.next(now())).isEqualTo(0);
    }

    @Test
    void wakesExactlyAtTheNextDueTimeWithoutLookahead() {
        start(1, Duration.ZERO);
        claim(reply(1000, -1, false, false));
        assertThat(schedule.next(now())).isEqualTo(-1);
        assertThat(schedule.untilNext(now())).isEqualTo(1000 * MS);
        worker.ticker.advance(Duration.ofMillis(999));
        assertThat(schedule.next(now())).isEqualTo(-1);
        worker.ticker.advance(Duration.ofMillis(1));
        assertThat(schedule.next(now())).isEqualTo(0);
    }

    @Test
    void wakesALookaheadBeforeTheDueTimeButNotSoonerThanHalfALookahead() {
        start(1, Duration.ofMillis(50));
        claim(reply(1000, -1, false, false));
        assertThat(schedule.untilNext(now())).isEqualTo(950 * MS);
        worker.ticker.advance(Duration.ofMillis(950));
        claim(reply(10, -1, false, false)); // everything within the lookahead was leased: half a window's worth next
        assertThat(schedule.untilNext(now())).isEqualTo(25 * MS);
    }

    @Test
    void standsByPastTheDueTimeWhenAnotherWorkerCoversIt() {
        start(1, Duration.ofMillis(50));
        claim(reply(1000, -1, true, false));
        assertThat(schedule.untilNext(now())).isEqualTo((950 + 250) * MS);
    }

    @Test
    void aRateLimitedClaimComesBackWhenTheWindowFreesAGrantNotALookaheadSooner() {
        start(1, Duration.ofMillis(50));
        claim(reply(1000, -1, false, true));
        assertThat(schedule.untilNext(now())).isEqualTo(1000 * MS);
    }

    @Test
    void withNothingScheduledSleepsTheMaxIdleSleepLessUpToATenth() {
        start(1, Duration.ofMillis(50));
        claim(reply(-1, -1, false, false));
        assertThat(schedule.untilNext(now())).isBetween(54_000 * MS, 60_000 * MS);
    }

    @Test
    void wakesToRecoverAnExpiredLeaseWithinASecondAfterItsExpiry() {
        start(1, Duration.ofMillis(50));
        claim(reply(-1, 2000, false, false));
        assertThat(schedule.untilNext(now())).isBetween(2000 * MS, 3000 * MS);
    }

    @Test
    void aFullBatchClaimsAgainAtOnce() {
        start(1, Duration.ofMillis(50));
        int p = schedule.next(now());
        schedule.claiming(p);
        assertThat(schedule.plan(p, full())).as("more are due").isTrue();
        assertThat(schedule.next(now())).isEqualTo(0);
        schedule.claiming(0);
        assertThat(schedule.plan(0, reply(1000, -1, false, false))).isFalse();
    }

    @Test
    void aNoticeOfAnEarlierHeadMovesTheNextClaimForwardAndALaterOneDoesNot() {
        start(1, Duration.ZERO);
        claim(reply(-1, -1, false, false));
        schedule.onHead(0, SERVER_MS + 200);
        assertThat(schedule.next(now())).isEqualTo(-1);
        assertThat(schedule.untilNext(now())).isEqualTo(200 * MS);
        worker.ticker.advance(Duration.ofMillis(200));
        assertThat(schedule.next(now())).isEqualTo(0);

        schedule.claiming(0);
        schedule.plan(0, reply(500, -1, false, false)); // due at +500 ms from the start: in 300 ms
        schedule.onHead(0, SERVER_MS + 900);
        schedule.next(now());
        assertThat(schedule.untilNext(now())).isEqualTo(300 * MS);
    }

    @Test
    void aNoticeThatArrivesWhileTheClaimIsInFlightIsKeptForItsPlan() {
        start(1, Duration.ZERO);
        schedule.claiming(schedule.next(now()));
        schedule.onHead(0, SERVER_MS + 300); // the claim read the due set before this job was added
        schedule.plan(0, reply(-1, -1, false, false));
        assertThat(schedule.untilNext(now())).isEqualTo(300 * MS);
    }

    @Test
    void aReconnectionClaimsFromEveryPartitionAtOnce() {
        start(2, Duration.ofMillis(50));
        claim(reply(-1, -1, false, false));
        claim(reply(-1, -1, false, false));
        assertThat(schedule.next(now())).isEqualTo(-1);
        schedule.onReconnect();
        assertThat(schedule.next(now())).isEqualTo(0);
        schedule.claiming(0);
        assertThat(schedule.next(now())).isEqualTo(1);
    }

    @Test
    void aFailedClaimIsRetriedAfterItsBackOff() {
        start(1, Duration.ofMillis(50));
        int p = schedule.next(now());
        schedule.claiming(p);
        schedule.retryIn(p, 200);
        assertThat(schedule.next(now())).isEqualTo(-1);
        assertThat(schedule.untilNext(now())).isEqualTo(200 * MS);
        worker.ticker.advance(Duration.ofMillis(200));
        assertThat(schedule.next(now())).isEqualTo(p);
    }

    @Test
    void partitionsWithABacklogAreClaimedFromInTurn() {
        start(3, Duration.ofMillis(50));
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            order.add(claim(full()));
        }
        assertThat(order).containsExactly(0, 1, 2, 0, 1, 2, 0);
    }

    @Test
    void aPartitionWhoseTimeHasComeIsClaimedFromWhileAnotherSleeps() {
        start(2, Duration.ZERO);
        assertThat(claim(reply(-1, -1, false, false))).isEqualTo(0);
        assertThat(claim(reply(100, -1, false, false))).isEqualTo(1);
        assertThat(schedule.untilNext(now())).isEqualTo(100 * MS);
        worker.ticker.advance(Duration.ofMillis(100));
        assertThat(schedule.next(now())).isEqualTo(1);
    }

    @Test
    void aDueTimeInYear9999IsLaterThanAnySleepNotAlreadyDue() {
        start(1, Duration.ZERO);
        long year9999 = 253_402_300_799_000L;
        claim(new ClaimBatch(List.of(), SERVER_MS, year9999, ClaimBatch.NONE, 0, 0, false, SERVER_MS * 1000, false, 0,
                false));
        assertThat(schedule.next(now())).isEqualTo(-1);
        assertThat(schedule.untilNext(now())).isBetween(54_000 * MS, 60_000 * MS);
    }
}
