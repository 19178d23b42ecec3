package dev.delayq.internal.worker;

import static dev.delayq.internal.worker.TestWorker.job;
import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.internal.WorkerBeat;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The heartbeat on a fake ticker and a fake partition: a beat names the worker and the jobs its handlers run with their
 * ages by the worker's ticker, lives three intervals, a failed beat is counted each time but never stops the next one,
 * and close says goodbye.
 */
class HeartbeatTest {
    private final TestWorker worker = new TestWorker(2, TestWorker.config());
    private final Heartbeat heartbeat = new Heartbeat(worker.ctx, "host-1");

    private FakePartition.Call<FakePartition.BeatArgs, Object> lastBeat() {
        FakePartition.Call<FakePartition.BeatArgs, Object> last = null;
        for (FakePartition.Call<FakePartition.BeatArgs, Object> c : worker.parts.get(0).beats) {
            last = c;
        }
        return last;
    }

    @Test
    void aBeatNamesTheWorkerAndTheJobsItsHandlersRunWithTheirAgesAndLivesThreeIntervals() {
        worker.ticker.advance(Duration.ofSeconds(7));
        Running a = worker.hold(job(0, 1));
        a.started = true;
        a.startNanos = worker.ticker.nanos();
        worker.ticker.advance(Duration.ofSeconds(2));
        Running b = worker.hold(job(1, 2));
        b.started = true;
        b.startNanos = worker.ticker.nanos();
        worker.hold(job(0, 3)); // leased ahead, not started: not running
        Running acking = worker.hold(job(0, 4));
        acking.started = true;
        acking.acking = true; // its handler returned
        worker.ticker.advance(Duration.ofMillis(500));

        heartbeat.beat();
        assertThat(worker.parts.get(1).beats).as("the registry is the queue's: asked of partition 0 only").isEmpty();
        FakePartition.BeatArgs args = lastBeat().args();
        assertThat(args.ttlMillis()).isEqualTo(3 * WorkerConfig.DEFAULT_HEARTBEAT.toMillis());
        WorkerBeat beat = args.beat();
        assertThat(beat.id()).startsWith("w#").isEqualTo(heartbeat.id());
        assertThat(beat.name()).isEqualTo("w");
        assertThat(beat.host()).isEqualTo("host-1");
        assertThat(beat.pid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(beat.queues()).containsExactly("q");
        assertThat(beat.concurrency()).isEqualTo(8);
        assertThat(beat.uptimeMillis()).isEqualTo(9_500);
        assertThat(beat.running()).containsExactlyInAnyOrder(new WorkerBeat.Run("j1", 2_500), new WorkerBeat.Run("j2", 500));
    }

    @Test
    void aFailedBeatIsCountedAndTheNextBeatStillGoesOut() {
        heartbeat.beat();
        lastBeat().answer().completeExceptionally(new IllegalStateException("Redis is down"));
        heartbeat.beat();
        lastBeat().answer().completeExceptionally(new IllegalStateException("Redis is down"));
        assertThat(worker.metrics.count("redisError heartbeat")).isEqualTo(2);
        heartbeat.beat();
        assertThat(worker.parts.get(0).beats).hasSize(3);
        lastBeat().answer().complete(1L);
        assertThat(worker.metrics.count("redisError heartbeat")).isEqualTo(2);
    }

    @Test
    void failedBeatsAreLoggedAtMostOnceAMinute() {
        try (dev.delayq.LogCapture.Recording log = dev.delayq.LogCapture.record(Heartbeat.class.getName())) {
            for (int i = 0; i < 5; i++) { // a beat failing every 10 s for 50 s: one warning
                heartbeat.beat();
                lastBeat().answer().completeExceptionally(new IllegalStateException("Redis is down"));
                worker.ticker.advance(Duration.ofSeconds(10));
            }
            assertThat(log.events()).hasSize(1);
            assertThat(log.events().get(0).message()).startsWith("worker w: heartbeat in queue q failed (logged at most "
                    + "once a minute; the worker goes on)").contains("Redis is down");
            worker.ticker.advance(Duration.ofSeconds(10)); // a minute after the first
            heartbeat.beat();
            lastBeat().answer().completeExceptionally(new IllegalStateException("Redis is down"));
            assertThat(log.events()).hasSize(2);
            assertThat(worker.metrics.count("redisError heartbeat")).isEqualTo(6);
        }
    }

    @Test
    void closeRemovesTheWorkerFromTheRegistry() {
        CompletableFuture.runAsync(() -> {
            while (worker.parts.get(0).goodbyes.isEmpty()) {
                Thread.onSpinWait();
            }
            worker.parts.get(0).goodbyes.peek().answer().complete(true);
        });
        heartbeat.close();
        assertThat(worker.parts.get(0).goodbyes).extracting(FakePartition.Call::args).containsExactly(heartbeat.id());
    }
}
