package dev.delayq.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQ;
import dev.delayq.JobInfo;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.QueueStats;
import dev.delayq.bench.BenchMain;
import dev.delayq.cli.Exit;
import dev.delayq.testkit.RedisServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo runs in the suite with a small number of jobs and must pass; and what it reports is checked against what
 * Redis holds and what its killed worker wrote, not taken from its own report.
 */
class DemoCommandTest {

    /** What one run of the command line printed and returned. */
    private record Result(int exit, String out, String err) {
    }

    private static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = BenchMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void demoOnAPrivateRedisLosesNothingAndClaimsNothingTwice() {
        Result r = run("demo", "--jobs", "400", "--workers", "3", "--spread", "1s");
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out())
                .containsPattern("enqueued\\s+400")
                .containsPattern("duplicates\\s+0 ")
                .containsPattern("lost\\s+0 ")
                .contains("same-ms order  yes")
                .contains("check passed")
                .contains("PASS: nothing lost, nothing claimed twice");
        assertThat(r.out()).containsPattern("dead\\s+2 "); // orders 7 and 207 always fail
        assertThat(r.err()).contains("scheduled").contains("done").doesNotContain("\r"); // not a terminal: plain lines
    }

    /**
     * The run the command makes, on a Redis of the test's own (the command deletes its keys or stops its server): the
     * child worker is killed while jobs remain, the leases it held come back and run elsewhere, and every job enqueued
     * ends done or dead exactly once, as Redis and the killed worker's own record of its starts show.
     */
    @Test
    void theKilledWorkerDiesMidRunItsLeasesAreRecoveredAndEveryJobEndsOnceByRedisAndItsSink(@TempDir Path tmp)
            throws Exception {
        int jobs = 400;
        try (RedisServer server = RedisServer.start();
             DelayQ dq = DelayQ.builder().redis(server.uri()).prefix("demo-test").timeout(Duration.ofSeconds(10)).build()) {
            JobQueue q = dq.queue(DemoRun.QUEUE);
            StringWriter progress = new StringWriter();
            DemoRun demo = new DemoRun(dq, server.uri(), null, "demo-test", jobs, 3, Duration.ofSeconds(1),
                    new PrintWriter(progress, true), false);
            CompletableFuture<DemoReport> running = CompletableFuture.supplyAsync(() -> {
                try {
                    return demo.run(tmp);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, task -> { // its own thread: the common pool may have a single thread on a small machine
                Thread t = new Thread(task, "demo-run");
                t.setDaemon(true);
                t.start();
            });
            // The doomed worker: a child JVM of this one, found by its starts file (the sink it writes every start to).
            Path sink = tmp.resolve("doomed-starts.txt");
            ProcessHandle[] doomed = new ProcessHandle[1];
            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(10)).until(() -> {
                doomed[0] = ProcessHandle.current().children().filter(p -> commandLine(p).contains(DemoChildWorker.class.getName())
                        && commandLine(p).contains(sink.toString())).findFirst().orElse(null);
                return doomed[0] != null || running.isDone();
            });
            assertThat(doomed[0]).as("the doomed worker's process").isNotNull();
            // It never ends by itself (it waits forever once started): when it is gone, it was killed, and what Redis holds
            // then says whether that was mid-run. (Its jobs held at the kill cannot end before their leases expire.)
            Awaitility.await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(5)).until(() -> !doomed[0].isAlive());
            QueueStats whenKilled = q.inspector().stats();
            DemoReport report = running.get(3, TimeUnit.MINUTES);
            assertThat(whenKilled.done() + whenKilled.dead()).as("jobs ended when the doomed worker died").isLessThan(jobs);
            assertThat(report.killedAtDone()).isBetween(0L, (long) jobs - 1);

            // Every job enqueued ended done or dead, once; the two poison orders dead, flaky ones done on their second
            // attempt, every other one on its first (a recovered lease is a stall, not an attempt).
            List<String> done = ids(q, JobState.DONE);
            List<String> dead = ids(q, JobState.DEAD);
            assertThat(done).doesNotHaveDuplicates();
            assertThat(dead).containsExactlyInAnyOrder(DemoJobs.id(7), DemoJobs.id(207));
            Set<String> ended = new HashSet<>(done);
            ended.addAll(dead);
            assertThat(ended).hasSize(jobs);
            for (int i = 0; i < jobs; i++) {
                JobInfo info = q.get(DemoJobs.id(i)).orElseThrow();
                assertThat(info.attempt()).as("attempts of %s", info.id())
                        .isEqualTo(DemoJobs.poison(i) ? DemoJobs.POLICY.maxAttempts() : DemoJobs.flaky(i) ? 2 : 1);
            }
            QueueStats s = q.inspector().stats();
            assertThat(s.scheduled() + s.processing()).isZero();
            assertThat(s.total("enqueued")).isEqualTo(jobs);
            assertThat(s.total("completed")).as("completions accepted: one per done job").isEqualTo(done.size());
            assertThat(q.inspector().check().problems()).isEmpty();

            // The sink: every start of the doomed worker, "id attempt token", each claim once. Each of its runs either
            // stood (its token is the job's last), or its failure was accepted (the job went on to a later attempt), or
            // its lease expired with the worker and was recovered (a stall) to run again under a later token.
            List<String> claims = new ArrayList<>();
            Map<String, Long> doomedToken = new HashMap<>();
            for (String line : Files.readAllLines(sink, StandardCharsets.UTF_8)) {
                String[] f = line.split(" ");
                assertThat(f).as(line).hasSize(3);
                claims.add(f[0] + "#" + f[2]);
                long token = Long.parseLong(f[2]);
                doomedToken.merge(f[0], token, Math::max);
                JobInfo info = q.get(f[0]).orElseThrow();
                assertThat(info.token() == token || info.attempt() > Integer.parseInt(f[1]) || info.stalls() > 0)
                        .as("the doomed worker's run of %s (attempt %s, token %s) is accounted for: %s", f[0], f[1], f[2], info)
                        .isTrue();
            }
            assertThat(claims).as("the doomed worker's starts").isNotEmpty().doesNotHaveDuplicates();
            // The jobs it held when it was killed (it says which) came back and ran again elsewhere.
            List<String> held = Files.readAllLines(tmp.resolve("doomed.log"), StandardCharsets.UTF_8).stream()
                    .filter(l -> l.startsWith("holding ")).map(l -> l.substring("holding ".length())).toList();
            assertThat(held).as("jobs the doomed worker held when killed").isNotEmpty();
            for (String id : held) {
                JobInfo info = q.get(id).orElseThrow();
                assertThat(info.stalls()).as("stalls of %s", id).isPositive();
                assertThat(info.token()).as("token of %s", id).isGreaterThan(doomedToken.get(id));
                assertThat(info.state()).isIn(JobState.DONE, JobState.DEAD);
            }
            assertThat(s.total("recovered")).isGreaterThanOrEqualTo(held.size());

            // The report says what Redis says.
            StringWriter printed = new StringWriter();
            report.print(new PrintWriter(printed, true), "test", 1.0);
            assertThat(count(printed, "recovered")).isEqualTo(s.total("recovered"));
            assertThat(count(printed, "completed")).isEqualTo(done.size());
            assertThat(count(printed, "dead")).isEqualTo(dead.size());
            assertThat(count(printed, "duplicates")).isZero();
            assertThat(count(printed, "lost")).isZero();
            assertThat(printed.toString()).contains("PASS: nothing lost, nothing claimed twice");
        }
    }

    /** A process's whole command line (ProcessHandle.Info cuts a long one short), or "" once it is gone. */
    private static String commandLine(ProcessHandle p) {
        try {
            return new String(Files.readAllBytes(Path.of("/proc", Long.toString(p.pid()), "cmdline")), StandardCharsets.UTF_8)
                    .replace('\0', ' ');
        } catch (java.io.IOException e) {
            return "";
        }
    }

    private static List<String> ids(JobQueue q, JobState state) {
        try (Stream<JobInfo> jobs = q.inspector().stream(state)) {
            return jobs.map(JobInfo::id).toList();
        }
    }

    /** The figure on the report's line {@code name}. */
    private static long count(StringWriter report, String name) {
        Matcher m = Pattern.compile("(?m)^  " + name + "\\s+([0-9,]+)").matcher(report.toString());
        assertThat(m.find()).as("line %s in %s", name, report).isTrue();
        return Long.parseLong(m.group(1).replace(",", ""));
    }

    @Test
    void demoOnAGivenRedisCleansUpItsKeys() {
        try (RedisServer server = RedisServer.start()) {
            Result r = run("demo", "--jobs", "100", "--workers", "2", "--spread", "500ms", "--redis", server.uri());
            assertThat(r.exit()).as(r.out() + r.err()).isZero();
            assertThat(r.out()).contains("under prefix dq-demo-").contains("PASS");
            assertThat(server.call("DBSIZE")).isEqualTo(0L);
        }
    }

    @Test
    void badOptionsAreRefusedWithTheAllowedRange() {
        Result r = run("demo", "--workers", "1");
        assertThat(r.exit()).isEqualTo(Exit.USAGE);
        assertThat(r.err().strip()).isEqualTo("delayq: --workers is 1: it must be between 2 and 64");
    }
}
