package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.testkit.RedisExtension;
import java.io.IOException;
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
 * Schedules ticked by worker processes (separate JVMs, killed with SIGKILL): one job per tick whatever the number of
 * workers, and a worker killed and restarted neither duplicates nor loses a tick beyond the missed-tick policy.
 */
class ScheduleWorkersTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private TestSupport t;
    private final List<Process> children = new ArrayList<>();

    @BeforeEach
    void open() {
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
    }

    @AfterEach
    void close() throws InterruptedException {
        for (Process p : children) {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
        t.close();
    }

    /** Starts worker processes numbered {@code ns} side by side and waits until each has started. */
    private List<Process> workers(Path dir, String queue, Path marker, int... ns) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<Process> started = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        for (int n : ns) {
            Path log = dir.resolve("worker-" + n + ".log");
            Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), ScheduleWorkerMain.class.getName(),
                    REDIS.uri(), t.prefix(), queue, marker.toString())
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            children.add(p);
            started.add(p);
            logs.add(log);
        }
        for (Path log : logs) {
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> Files.readString(log).contains("started"));
        }
        return started;
    }

    private static void kill(Process p) throws InterruptedException {
        p.destroyForcibly(); // SIGKILL: no shutdown hook, nothing handed back
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }

    /** The tick times of schedule {@code name} that ran, as recorded by the workers, in the order they ran. */
    private static List<Long> ran(Path marker, String name) throws IOException {
        return Files.readAllLines(marker, StandardCharsets.UTF_8).stream().filter(l -> l.startsWith(name + "@"))
                .map(l -> Long.parseLong(l.substring(name.length() + 1))).toList();
    }

    @Test
    void threeWorkerProcessesRunAnEverySecondScheduleOncePerTick(@TempDir Path dir) throws Exception {
        JobQueue q = t.queue(t.client(), "tick3");
        Path marker = Files.createFile(dir.resolve("ran.txt"));
        workers(dir, "tick3", marker, 0, 1, 2);
        q.schedules().upsert(Schedule.every("sec", Duration.ofSeconds(1)));
        long from = t.redisNow();
        t.awaitRedisTime(from + 10_000);
        long to = t.redisNow();
        q.schedules().remove("sec");
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> ran(marker, "sec").stream().filter(x -> x <= to).count()
                == q.stream(JobState.DONE).filter(j -> j.id().startsWith("sec@")).filter(j -> j.dueAtMillis() <= to).count()
                && q.stats().processing() == 0);
        List<Long> ticks = ran(marker, "sec").stream().filter(x -> x > from && x <= to).sorted().toList();
        assertThat(ran(marker, "sec")).as("no tick ran twice").doesNotHaveDuplicates();
        assertThat(ticks).as("10 s of an every-second schedule").hasSizeBetween(9, 11);
        for (int i = 1; i < ticks.size(); i++) {
            assertThat(ticks.get(i) - ticks.get(i - 1)).as("no tick lost").isEqualTo(1000);
        }
        assertThat(q.check().problems()).isEmpty();
    }

    @Test
    void workersKilledAndRestartedMidRunNeitherDuplicateNorLoseATick(@TempDir Path dir) throws Exception {
        JobQueue q = t.queue(t.client(), "killed");
        Path marker = Files.createFile(dir.resolve("ran.txt"));
        List<Process> ab = workers(dir, "killed", marker, 0, 1);
        Process a = ab.get(0);
        Process b = ab.get(1);
        q.schedules().upsert(Schedule.every("all", Duration.ofSeconds(1)).missed(Schedule.Missed.ALL));
        q.schedules().upsert(Schedule.every("skip", Duration.ofSeconds(1)));
        long first = q.schedules().get("all").orElseThrow().nextTick().toEpochMilli();
        t.awaitRedisTime(first + 2_500);
        kill(a); // one of two killed: the other goes on ticking
        t.awaitRedisTime(first + 4_500);
        kill(b); // every worker killed: ticks pass unseen for ~3 s
        long down = t.redisNow();
        t.awaitRedisTime(down + 3_000);
        long up = t.redisNow();
        workers(dir, "killed", marker, 2, 3);
        // The restarted workers catch up and tick on: wait until both schedules have run a tick after the restart
        // (however long the JVMs took to start), then stop them.
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> ran(marker, "all").stream().anyMatch(x -> x >= up + 1000)
                && ran(marker, "skip").stream().anyMatch(x -> x >= up + 1000));
        q.schedules().remove("all");
        q.schedules().remove("skip");
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> q.stats().scheduled() == 0 && q.stats().processing() == 0);

        List<Long> all = ran(marker, "all");
        assertThat(all).as("no tick ran twice").doesNotHaveDuplicates();
        List<Long> sorted = all.stream().sorted().toList();
        assertThat(sorted.get(0)).isEqualTo(first);
        for (int i = 1; i < sorted.size(); i++) {
            assertThat(sorted.get(i) - sorted.get(i - 1)).as("ALL: every tick ran, the missed ones caught up").isEqualTo(1000);
        }
        assertThat(sorted.get(sorted.size() - 1)).isGreaterThanOrEqualTo(up + 1000);

        List<Long> skip = ran(marker, "skip");
        assertThat(skip).doesNotHaveDuplicates();
        List<Long> sk = skip.stream().sorted().toList();
        for (int i = 1; i < sk.size(); i++) {
            long gap = sk.get(i) - sk.get(i - 1);
            // SKIP: a gap only across the time no worker ran, never elsewhere.
            assertThat(gap == 1000 || (sk.get(i - 1) <= up && sk.get(i) >= down)).as("gap %d ms before %d", gap, sk.get(i)).isTrue();
        }
        assertThat(q.check().problems()).isEmpty();
    }
}
