package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.testkit.RedisExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker process killed with SIGKILL while it holds a batch loses nothing: another worker recovers every job. Its
 * heartbeat, listed while it ran with the jobs it held, expires three beat intervals after its last beat (never
 * earlier: it said no goodbye).
 */
class WorkerCrashTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private static final long BEAT_MS = 500;

    private TestSupport t;

    @BeforeEach
    void open() {
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
    }

    @AfterEach
    void close() {
        t.close();
    }

    @Test
    void jobsHeldByAKilledWorkerAreRecoveredAfterTheirLeaseAndRunAgain(@TempDir Path dir) throws Exception {
        DelayQ dq = t.client();
        JobQueue q = t.queue(dq, "crash");
        int total = 50;
        int held = 20;
        for (int i = 0; i < total; i++) {
            q.enqueue(Job.builder().id("c" + i).payload("job " + i).build());
        }
        Path marker = dir.resolve("started.txt");
        Files.createFile(marker);
        String java = ProcessHandle.current().info().command().orElse("java");
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), ChildWorkerMain.class.getName(),
                REDIS.uri(), t.prefix(), "crash", "2000", String.valueOf(held), marker.toString(), String.valueOf(BEAT_MS))
                .redirectErrorStream(true).redirectOutput(dir.resolve("child.log").toFile()).start();
        try {
            Awaitility.await().atMost(Duration.ofSeconds(60))
                    .until(() -> Files.readAllLines(marker, StandardCharsets.UTF_8).size() == held);
            assertThat(q.inspector().stats().processing()).isEqualTo(held);
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> q.inspector().workers().stream()
                    .anyMatch(w -> w.pid() == child.pid() && w.running().size() == held));
        } finally {
            child.destroyForcibly(); // SIGKILL: no shutdown hook, no hand-back, leases left to expire
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        long lastBeat = q.inspector().workers().stream().filter(w -> w.pid() == child.pid())
                .mapToLong(w -> w.lastBeat().toEpochMilli()).max().orElse(Long.MIN_VALUE);
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
            boolean listed = q.inspector().workers().stream().anyMatch(w -> w.pid() == child.pid());
            long now = q.inspector().stats().serverTimeMillis(); // read after the list
            if (!listed && lastBeat != Long.MIN_VALUE) {
                assertThat(now).as("dropped no earlier than three beats after its last one").isGreaterThanOrEqualTo(lastBeat + 3 * BEAT_MS);
            }
            return !listed;
        });
        List<String> abandoned = Files.readAllLines(marker, StandardCharsets.UTF_8);
        assertThat(abandoned).hasSize(held);

        List<String> ran = new java.util.concurrent.CopyOnWriteArrayList<>();
        RetryPolicy quick = RetryPolicy.builder().base(Duration.ofMillis(10)).cap(Duration.ofMillis(10)).build();
        try (Worker rescuer = Worker.builder(q, job -> ran.add(job.id())).retryPolicy(quick).build().start()) {
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> q.inspector().stats().done() == total);
            assertThat(rescuer.isRunning()).isTrue();
        }
        assertThat(ran).doesNotHaveDuplicates().hasSize(total);
        List<String> recovered = new ArrayList<>();
        for (int i = 0; i < total; i++) {
            JobInfo info = q.get("c" + i).orElseThrow();
            assertThat(info.state()).isEqualTo(JobState.DONE);
            if (abandoned.contains("c" + i)) {
                assertThat(info.attempt()).as("the killed run is a stall, not an attempt").isEqualTo(1);
                assertThat(info.stalls()).isEqualTo(1);
                assertThat(info.lastError()).startsWith("lease expired (stall 1 of at most");
                recovered.add(info.id());
            } else {
                assertThat(info.attempt()).isEqualTo(1);
                assertThat(info.stalls()).isZero();
            }
        }
        assertThat(recovered).hasSize(held);
        assertThat(q.inspector().stats().total("recovered")).isEqualTo(held);
        assertThat(q.inspector().check().problems()).isEmpty();
    }
}
