package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.testkit.RedisExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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

    /** When each job was enqueued (Redis clock, ms), from the queue's event stream. */
    private static Map<String, Long> enqueueTimes(JobQueue q) {
        Map<String, Long> at = new HashMap<>();
        String after = "0";
        List<JobEvent> page;
        while (!(page = q.inspector().events().read(after, 1000)).isEmpty()) {
            for (JobEvent e : page) {
                if (e.type().equals("enqueued")) {
                    at.putIfAbsent(e.jobId(), e.at().toEpochMilli());
                }
            }
            after = page.get(page.size() - 1).eventId();
        }
        return at;
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
        // ALL: every tick must run however late the tickers come on a busy machine, so a gap is a lost tick.
        q.schedules().upsert(Schedule.every("sec", Duration.ofSeconds(1)).missed(Schedule.Missed.ALL));
        long from = t.redisNow();
        t.awaitRedisTime(from + 10_000);
        long to = t.redisNow();
        // Ticks are enqueued in order: once one after `to` exists, every tick up to `to` was enqueued.
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> ran(marker, "sec").stream().anyMatch(x -> x > to));
        q.schedules().remove("sec");
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> ran(marker, "sec").stream().filter(x -> x <= to).count()
                == q.inspector().stream(JobState.DONE).filter(j -> j.id().startsWith("sec@")).filter(j -> j.dueAtMillis() <= to).count()
                && q.inspector().stats().processing() == 0);
        List<Long> ticks = ran(marker, "sec").stream().filter(x -> x > from && x <= to).sorted().toList();
        assertThat(ran(marker, "sec")).as("no tick ran twice").doesNotHaveDuplicates();
        assertThat(ticks).as("10 s of an every-second schedule").hasSizeGreaterThanOrEqualTo(10);
        assertThat(ticks.get(0)).as("the first tick after the schedule was added").isLessThanOrEqualTo(from + 1000);
        for (int i = 1; i < ticks.size(); i++) {
            assertThat(ticks.get(i) - ticks.get(i - 1)).as("no tick lost").isEqualTo(1000);
        }
        assertThat(q.inspector().check().problems()).isEmpty();
    }

    @Test
    void workersKilledAndRestartedMidRunNeitherDuplicateNorLoseATick(@TempDir Path dir) throws Exception {
        JobQueue q = t.queue(t.client(), "killed");
        q.inspector().events(true); // when each tick was enqueued: tells a gap of late tickers from a tick dropped on time
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
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> q.inspector().stats().scheduled() == 0 && q.inspector().stats().processing() == 0);

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
        Map<String, Long> enqueuedAt = enqueueTimes(q);
        for (int i = 1; i < sk.size(); i++) {
            long prev = sk.get(i - 1);
            long next = sk.get(i);
            long gap = next - prev;
            // SKIP: a gap only across the time no worker ran, or where every ticker came late (a busy machine): no
            // missing tick was ever enqueued and the tick after the gap was enqueued after the last missing one was due.
            boolean outage = prev <= up && next >= down;
            boolean missingEnqueued = false;
            for (long m = prev + 1000; m < next; m += 1000) {
                missingEnqueued |= enqueuedAt.containsKey("skip@" + m);
            }
            Long at = enqueuedAt.get("skip@" + next);
            boolean late = !missingEnqueued && at != null && at >= next - 1000;
            assertThat(gap == 1000 || outage || late).as("gap %d ms before %d (enqueued at %s)", gap, next, at).isTrue();
        }
        assertThat(q.inspector().check().problems()).isEmpty();
    }
}
