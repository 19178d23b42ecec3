package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.testkit.RedisServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A worker started with {@code --exit-when-idle} whose claims failed: its own class (it waits out a 40 s idle
 * period), so that failsafe runs it beside the other process tests instead of after them.
 */
class WorkIdleExitIT extends PackagedJarTest {
    @Test
    void aWorkerWhoseClaimsFailedDoesNotExitZeroWhenItStopsForIdleness() throws Exception {
        try (RedisServer flaky = RedisServer.start()) {
            String prefix = PREFIX;
            // A job due in 20 s, there before the worker: its first claim learns the due time and promises to come back
            // then (the idle worker's waker entry, awaited below), so no wake-up notice has to arrive before the kill
            // (on a busy machine one came after it, and the worker stopped for idleness without ever failing a claim).
            // Should the worker start so late that the job is due first, it runs it, and the next one is tried.
            Process[] w = {null};
            Path err = dir.resolve("cf-work.err");
            try (DelayQ dq = DelayQ.builder().redis(flaky.uri()).prefix(prefix).build()) {
                JobQueue q = dq.queue("cf");
                for (int k = 0; ; k++) {
                    assertThat(k).as("a job due before the worker's first claim, three times").isLessThan(3);
                    String id = "soon-" + k;
                    q.enqueue(Job.builder().id(id).delay(Duration.ofSeconds(20)).build());
                    long due = q.get(id).orElseThrow().dueAtMillis();
                    if (w[0] == null) {
                        w[0] = start("cf-work", List.of(), Map.of(), "work", "cf", "--exec", "true", "--exit-when-idle", "40s",
                                "--redis", flaky.uri());
                    }
                    await().atMost(DEADLINE).until(() -> String.valueOf(due).equals(String.valueOf(
                            flaky.call("HGET", prefix + ":{cf}:meta", "wake_at"))) || q.get(id).orElseThrow().state() == JobState.DONE);
                    if (q.get(id).orElseThrow().state() != JobState.DONE) {
                        break;
                    }
                }
                assertThat(read(err)).contains("delayq: working on queue 'cf'");
                flaky.kill();
                await().atMost(DEADLINE).until(() -> read(err).contains("claiming from cf: Redis call failed"));
                flaky.restart(); // Redis answers again (empty) before the worker stops for idleness
            } catch (RuntimeException | AssertionError e) {
                if (w[0] != null) {
                    w[0].destroyForcibly();
                }
                throw e;
            }
            Ran r = finish("cf-work", w[0]);
            assertThat(r.exit()).as(r.err()).isEqualTo(Exit.REDIS);
            assertThat(r.err()).containsPattern("delayq: worker stopped: .*\n")
                    .containsPattern("delayq: [1-9][0-9]* claim\\(s\\) failed during the run \\(Redis at redis://127\\.0\\.0\\.1:"
                            + flaky.port() + " unreachable or refusing; see the log above\\): the queue may still hold due "
                            + "jobs this worker could not claim");
        }
    }
}
