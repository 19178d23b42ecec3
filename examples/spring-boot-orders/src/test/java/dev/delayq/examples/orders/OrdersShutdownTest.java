package dev.delayq.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobInfo;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.QueueStats;
import dev.delayq.testkit.RedisServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged application's SIGTERM, as an orchestrator sends it: the application runs in a process of its own
 * against a private Redis, four time-outs are running (each waiting on the payment provider, an hour here) when it
 * is told to stop; it stops within its shutdown grace and hands them back, due again with their attempt not counted,
 * and nothing is lost or left processing; a second start runs every time-out once.
 */
class OrdersShutdownTest {
    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final int JOBS = 10;

    @TempDir
    Path dir;

    private Process start(RedisServer redis, String providerLatency, Path log) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
                OrdersApplication.class.getName(), "--server.port=0",
                "--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + redis.port(),
                "--orders.provider-latency=" + providerLatency, "--orders.timeout-workers=4",
                "--orders.report-every=1h", "--delayq.worker.shutdown-grace=1s"));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Test
    void aSigtermHandsBackTheRunningTimeoutsAndTheNextStartRunsEachOnce() throws Exception {
        Path firstLog = dir.resolve("first.log");
        Path secondLog = dir.resolve("second.log");
        try (RedisServer redis = RedisServer.start(); DelayQ dq = DelayQ.connect(redis.uri())) {
            JobQueue orders = dq.queue(OrderController.QUEUE);
            for (int i = 1; i <= JOBS; i++) {
                orders.enqueue(Job.builder().id("order-" + i + ":timeout").payload("{\"orderId\":" + i + "}").build());
            }
            Process first = start(redis, "1h", firstLog);
            try {
                Awaitility.await("four time-outs running in the application").atMost(WAIT)
                        .until(() -> orders.inspector().stats().processing() == 4 || !first.isAlive());
                assertThat(first.isAlive()).as("the application runs:\n%s", tail(firstLog)).isTrue();

                first.destroy(); // SIGTERM
                assertThat(first.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).as("stopped:\n%s", tail(firstLog)).isTrue();
                assertThat(first.exitValue()).as("exit status:\n%s", tail(firstLog)).isIn(0, 143);
            } finally {
                first.destroyForcibly();
            }
            QueueStats handedBack = orders.inspector().stats();
            assertThat(handedBack.processing()).as("left processing:\n%s", tail(firstLog)).isZero();
            assertThat(handedBack.scheduled()).isEqualTo(JOBS);
            assertThat(handedBack.done() + handedBack.dead()).isZero();
            for (int i = 1; i <= JOBS; i++) {
                JobInfo job = orders.get("order-" + i + ":timeout").orElseThrow();
                assertThat(job.state()).isEqualTo(JobState.SCHEDULED);
                assertThat(job.attempt()).as("a handed-back attempt is not counted").isZero();
            }
            assertThat(orders.inspector().check().problems()).isEmpty();

            Process second = start(redis, "0ms", secondLog);
            try {
                Awaitility.await("every time-out run by the second start").atMost(WAIT)
                        .until(() -> orders.inspector().stats().done() == JOBS || !second.isAlive());
                assertThat(second.isAlive()).as("the second start runs:\n%s", tail(secondLog)).isTrue();
                second.destroy();
                assertThat(second.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            } finally {
                second.destroyForcibly();
            }
            for (int i = 1; i <= JOBS; i++) {
                JobInfo job = orders.get("order-" + i + ":timeout").orElseThrow();
                assertThat(job.state()).isEqualTo(JobState.DONE);
                assertThat(job.attempt()).as("run once, by the second start").isEqualTo(1);
            }
            assertThat(orders.inspector().check().problems()).isEmpty();
        }
    }
}
