package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.delayq.ClaimOptions;
import dev.delayq.ClaimedJob;
import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobInfo;
import dev.delayq.JobState;
import dev.delayq.JobQueue;
import dev.delayq.testkit.RedisExtension;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code work --exec}: real shell commands run by an in-process worker against a private Redis. */
class WorkCommandTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    @TempDir
    Path dir;

    private Cli cli;
    private DelayQ dq;
    private JobQueue q;

    @BeforeEach
    void connect() {
        cli = new Cli(REDIS.uri(), REDIS.prefix());
        dq = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).build();
        q = dq.queue("jobs");
    }

    @AfterEach
    void close() {
        dq.close();
    }

    private Cli.Result work(String command, String... options) {
        String[] args = new String[4 + options.length];
        args[0] = "work";
        args[1] = "jobs";
        args[2] = "--exec";
        args[3] = command;
        System.arraycopy(options, 0, args, 4, options.length);
        return cli.run(args);
    }

    private List<String> lines(Path file) throws IOException {
        return Files.exists(file) ? Files.readAllLines(file) : List.of();
    }

    @Test
    void runsEachJobOnceWithItsEnvironmentAndWaitsForJobsDueAfterItStarted() throws Exception {
        Path ran = dir.resolve("ran.txt");
        q.enqueue(Job.builder().id("a").build());
        q.enqueue(Job.builder().id("b").build());
        q.enqueue(Job.builder().id("late").delay(Duration.ofMillis(1500)).build()); // due after the worker started

        Cli.Result r = work("echo \"$DELAYQ_JOB_ID $DELAYQ_ATTEMPT\" >> " + ran + "; echo \"stdout of $DELAYQ_JOB_ID\"",
                "--exit-when-idle", "3s");

        assertThat(r.exit()).isZero();
        assertThat(lines(ran)).containsExactlyInAnyOrder("a 1", "b 1", "late 1");
        assertThat(r.lines()).containsExactlyInAnyOrder("stdout of a", "stdout of b", "stdout of late");
        assertThat(q.inspector().stats().done()).isEqualTo(3);
        assertThat(q.inspector().stats().scheduled() + q.inspector().stats().processing()).isZero();
    }

    @Test
    void environmentDescribesTheJob() throws Exception {
        q.enqueue(Job.builder().id("order-7:timeout").maxAttempts(4).build());
        Path env = dir.resolve("env.txt");
        Cli.Result r = work("env | grep '^DELAYQ_' > " + env, "--exit-when-idle", "1s");
        assertThat(r.exit()).isZero();
        Map<String, String> vars = new HashMap<>();
        for (String line : lines(env)) {
            int eq = line.indexOf('=');
            vars.put(line.substring(0, eq), line.substring(eq + 1));
        }
        JobInfo job = q.get("order-7:timeout").orElseThrow();
        assertThat(vars).containsEntry("DELAYQ_QUEUE", "jobs").containsEntry("DELAYQ_JOB_ID", "order-7:timeout")
                .containsEntry("DELAYQ_ATTEMPT", "1").containsEntry("DELAYQ_MAX_ATTEMPTS", "4")
                .containsEntry("DELAYQ_TOKEN", Long.toString(job.token()));
        assertThat(Instant.parse(vars.get("DELAYQ_DUE_AT"))).isEqualTo(job.dueAt());
    }

    @Test
    void payloadArrivesOnStdinByteExact() throws Exception {
        byte[] payload = new byte[70_000]; // larger than a pipe buffer
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) (i * 31 + i / 256);
        }
        q.enqueue(Job.builder().id("bin").payload(payload).build());
        q.enqueue(Job.builder().id("empty").build());
        Cli.Result r = work("cat > " + dir + "/$DELAYQ_JOB_ID.bin", "--exit-when-idle", "1s");
        assertThat(r.exit()).isZero();
        assertThat(Files.readAllBytes(dir.resolve("bin.bin"))).isEqualTo(payload);
        assertThat(Files.readAllBytes(dir.resolve("empty.bin"))).isEmpty();
    }

    @Test
    void exit100SendsTheJobStraightToDead() throws Exception {
        q.enqueue(Job.builder().id("poison").build());
        Path ran = dir.resolve("ran.txt");
        Cli.Result r = work("echo \"$DELAYQ_JOB_ID $DELAYQ_ATTEMPT\" >> " + ran + "; echo 'cannot parse payload' >&2; exit 100",
                "--exit-when-idle", "1s", "--backoff-base", "10ms", "--backoff-cap", "10ms");
        assertThat(r.exit()).isZero();
        assertThat(lines(ran)).containsExactly("poison 1");
        JobInfo job = q.get("poison").orElseThrow();
        assertThat(job.state()).isEqualTo(JobState.DEAD);
        assertThat(job.attempt()).isEqualTo(1);
        assertThat(job.lastError()).isEqualTo("exit 100: cannot parse payload");
        assertThat(r.err()).contains("cannot parse payload"); // the command's stderr goes to the worker's
    }

    @Test
    void anotherExitIsRetriedWithTheStderrTailAsTheError() throws Exception {
        q.enqueue(Job.builder().id("flaky").build());
        // 5,000 bytes of noise, then the line that matters: only the tail fits in the error summary.
        String command = "head -c 5000 /dev/zero | tr '\\0' 'n' >&2; echo >&2; echo \"failed on attempt $DELAYQ_ATTEMPT\" >&2; exit 3";
        Cli.Result r = work(command, "--max-jobs", "1");
        assertThat(r.exit()).isZero();
        JobInfo job = q.get("flaky").orElseThrow();
        assertThat(job.state()).isEqualTo(JobState.SCHEDULED); // retried after the default 5 s backoff
        assertThat(job.attempt()).isEqualTo(1);
        assertThat(job.lastError()).startsWith("exit 3: ").endsWith("nnnn\nfailed on attempt 1");
        assertThat(job.lastError().getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(2048);
        assertThat(Duration.between(Instant.now(), job.dueAt())).isPositive();
    }

    @Test
    void failuresAreRetriedWithBackoffUntilAttemptsRunOut() throws Exception {
        q.enqueue(Job.builder().id("doomed").build());
        Path ran = dir.resolve("ran.txt");
        Cli.Result r = work("echo \"$DELAYQ_JOB_ID $DELAYQ_ATTEMPT/$DELAYQ_MAX_ATTEMPTS\" >> " + ran
                        + "; echo \"no luck $DELAYQ_ATTEMPT\" >&2; exit 3",
                "--max-attempts", "3", "--backoff-base", "50ms", "--backoff-cap", "100ms", "--exit-when-idle", "2s",
                "--verbose");
        assertThat(r.exit()).isZero();
        assertThat(lines(ran)).containsExactly("doomed 1/3", "doomed 2/3", "doomed 3/3");
        JobInfo job = q.get("doomed").orElseThrow();
        assertThat(job.state()).isEqualTo(JobState.DEAD);
        assertThat(job.lastError()).isEqualTo("exit 3: no luck 3");
        // --verbose: Redis's record of each run; the failures themselves are the worker's warnings (dev.delayq.jobs,
        // WorkProcessIT.eachFailedAttemptIsOneWarningBetweenTheStartAndSummaryLines), not printed a second time here.
        assertThat(r.err()).contains("retry_scheduled doomed attempt 1/3 token ", "retry_scheduled doomed attempt 2/3 token ",
                "dead doomed attempt 3/3 token ");
        assertThat(r.err()).doesNotContain("job doomed attempt", "will retry", "attempts used up");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void maxJobsStopsTheWorkerAfterThatManyJobs() throws Exception {
        for (int i = 0; i < 5; i++) {
            q.enqueue(Job.builder().id("j" + i).build());
        }
        Path ran = dir.resolve("ran.txt");
        Cli.Result r = work("echo $DELAYQ_JOB_ID >> " + ran, "--max-jobs", "2", "--concurrency", "1");
        assertThat(r.exit()).isZero();
        // Exactly two commands ran: a job leased beyond them is handed back without starting.
        assertThat(lines(ran)).hasSize(2).doesNotHaveDuplicates();
        assertThat(q.inspector().stats().done()).isEqualTo(lines(ran).size());
        assertThat(q.inspector().stats().processing()).isZero();
        assertThat(q.inspector().stats().scheduled()).isEqualTo(5 - lines(ran).size());
    }

    @Test
    void invalidWorkerSettingsAreExitTwo() {
        Cli.Result cap = work("true", "--backoff-base", "10s", "--backoff-cap", "1s");
        assertThat(cap.exit()).isEqualTo(Exit.USAGE);
        assertThat(cap.err()).isEqualTo("delayq: --backoff-cap 1s is shorter than --backoff-base 10s: the cap must be at least the base\n");

        Cli.Result idle = work("true", "--exit-when-idle", "soon");
        assertThat(idle.exit()).isEqualTo(Exit.USAGE);
        assertThat(idle.err()).contains("invalid duration 'soon'");

        Cli.Result concurrency = work("true", "--concurrency", "0", "--exit-when-idle", "1s");
        assertThat(concurrency.exit()).isEqualTo(Exit.USAGE);
        assertThat(concurrency.err()).isEqualTo("delayq: concurrency is 0: it must be between 1 and 10000\n");

        Cli.Result noExec = cli.run("work", "jobs");
        assertThat(noExec.exit()).isEqualTo(Exit.USAGE);
        assertThat(noExec.err()).contains("--exec");
    }

    private static Map<String, String> env(List<String> lines) {
        Map<String, String> vars = new HashMap<>();
        for (String line : lines) {
            int eq = line.indexOf('=');
            vars.put(line.substring(0, eq), line.substring(eq + 1));
        }
        return vars;
    }

    @Test
    void environmentHasTheJobsNameEmptyWhenItHasNoneAndItsStalls() throws Exception {
        q.enqueue(Job.builder().id("stalled").build());
        // "stalled" is leased by a worker that dies: its lease expires and this worker recovers it.
        ClaimedJob lost = q.leases().claim(ClaimOptions.of(1, Duration.ofMillis(300))).jobs().get(0);
        assertThat(lost.id()).isEqualTo("stalled");
        q.enqueue(Job.builder().id("named").name("email").group("tenant-7").build());
        q.enqueue(Job.builder().id("plain").build());
        Cli.Result r = work("env | grep '^DELAYQ_' > " + dir + "/$DELAYQ_JOB_ID.env", "--exit-when-idle", "2s",
                "--backoff-base", "10ms", "--backoff-cap", "10ms");
        assertThat(r.exit()).isZero();
        assertThat(r.err()).contains(" 1 recovered");
        Map<String, String> named = env(lines(dir.resolve("named.env")));
        assertThat(named).containsEntry("DELAYQ_JOB_NAME", "email").containsEntry("DELAYQ_STALLS", "0")
                .containsEntry("DELAYQ_JOB_GROUP", "tenant-7");
        Map<String, String> plain = env(lines(dir.resolve("plain.env")));
        assertThat(plain).containsEntry("DELAYQ_JOB_NAME", "").containsEntry("DELAYQ_STALLS", "0")
                .containsEntry("DELAYQ_JOB_GROUP", "");
        Map<String, String> stalled = env(lines(dir.resolve("stalled.env")));
        assertThat(stalled).containsEntry("DELAYQ_STALLS", "1").containsEntry("DELAYQ_ATTEMPT", "1");
    }

    @Test
    void maxStallsSendsAJobWhoseLeasesKeepExpiringToDead() throws Exception {
        q.enqueue(Job.builder().id("stalls").build());
        q.leases().claim(ClaimOptions.of(1, Duration.ofMillis(300)));
        Path ran = dir.resolve("ran.txt");
        Cli.Result r = work("echo $DELAYQ_JOB_ID >> " + ran, "--max-stalls", "0", "--exit-when-idle", "2s");
        assertThat(r.exit()).isZero();
        assertThat(lines(ran)).isEmpty(); // it never ran again
        JobInfo job = q.get("stalls").orElseThrow();
        assertThat(job.state()).isEqualTo(JobState.DEAD);
        assertThat(job.lastError()).contains("lease expired");
        assertThat(job.stalls()).isEqualTo(1);

        Cli.Result bad = work("true", "--max-stalls", "1001");
        assertThat(bad.exit()).isEqualTo(Exit.USAGE);
        assertThat(bad.err()).isEqualTo("delayq: --max-stalls is 1001: it must be between 0 and 1000\n");
    }

    /** GET {@code url}: the body, or {@code null} when nothing listens. */
    private static String scrape(String url) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        try {
            HttpResponse<String> rsp = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(rsp.statusCode()).isEqualTo(200);
            assertThat(rsp.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
            return rsp.body();
        } catch (java.net.ConnectException e) {
            return null;
        }
    }

    /** The value of the sample {@code name{queue="jobs"...}} in a scrape, or -1 when absent. */
    private static double sample(String scrape, String name) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^" + java.util.regex.Pattern.quote(name)
                + "\\{queue=\"jobs\"[^}]*\\} ([0-9.eE+-]+)$").matcher(scrape);
        return m.find() ? Double.parseDouble(m.group(1)) : -1;
    }

    @Test
    void metricsPortServesTheWorkersMetersWhileItRuns() throws Exception {
        for (String id : List.of("ok1", "ok2", "ok3", "bad", "slow")) {
            q.enqueue(Job.builder().id(id).build());
        }
        Path go = dir.resolve("go");
        String command = "case $DELAYQ_JOB_ID in bad) exit 100;; slow) while [ ! -e " + go + " ]; do sleep 0.05; done;; esac";
        Cli.Running run = cli.start(new java.io.ByteArrayInputStream(new byte[0]), "work", "jobs", "--exec", command,
                "--metrics-port", "0", "--exit-when-idle", "1s", "--max-attempts", "1");
        java.util.regex.Pattern started = java.util.regex.Pattern.compile("metrics (http://127\\.0\\.0\\.1:[0-9]+/metrics)");
        await().atMost(Duration.ofSeconds(60)).until(() -> started.matcher(run.err()).find());
        java.util.regex.Matcher m = started.matcher(run.err());
        assertThat(m.find()).isTrue();
        String url = m.group(1);

        // While "slow" runs: 3 completed, 1 failed (dead), 1 in flight, a lag sample per job started.
        String[] last = {""};
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            last[0] = scrape(url);
            assertThat(sample(last[0], "delayq_jobs_completed_total")).isEqualTo(3.0);
            assertThat(sample(last[0], "delayq_jobs_failed_total")).isEqualTo(1.0);
            assertThat(sample(last[0], "delayq_jobs_dead_total")).isEqualTo(1.0);
            assertThat(sample(last[0], "delayq_jobs_in_flight")).isEqualTo(1.0);
            assertThat(sample(last[0], "delayq_dispatch_lag_seconds_count")).isEqualTo(5.0);
        });
        assertThat(last[0]).contains("delayq_dispatch_lag_seconds_bucket{queue=\"jobs\",le=")
                .contains("delayq_processing_time_seconds_bucket{queue=\"jobs\",le=")
                .contains("delayq_jobs_claimed_total{queue=\"jobs\"} 5.0");
        assertThat(run.done()).isFalse();

        Files.createFile(go);
        Cli.Result r = run.await(Duration.ofSeconds(60));
        assertThat(r.exit()).isZero();
        assertThat(q.inspector().stats().done()).isEqualTo(4);
        assertThat(scrape(url)).isNull(); // it stopped listening with the worker
    }

    @Test
    void invalidMetricsSettingsAreExitTwo() throws Exception {
        Cli.Result range = work("true", "--metrics-port", "70000");
        assertThat(range.exit()).isEqualTo(Exit.USAGE);
        assertThat(range.err()).isEqualTo("delayq: --metrics-port is 70000: it must be 0 to 65535 (0 = any free port)\n");

        Cli.Result bindOnly = work("true", "--metrics-bind", "0.0.0.0");
        assertThat(bindOnly.exit()).isEqualTo(Exit.USAGE);
        assertThat(bindOnly.err()).startsWith("delayq: --metrics-bind 0.0.0.0 needs --metrics-port PORT");

        q.enqueue(Job.builder().id("untouched").build());
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Cli.Result inUse = work("true", "--metrics-port", Integer.toString(taken.getLocalPort()), "--exit-when-idle", "1s");
            assertThat(inUse.exit()).isEqualTo(Exit.USAGE);
            assertThat(inUse.err()).contains("--metrics-port: cannot listen on 127.0.0.1:" + taken.getLocalPort());
        }
        assertThat(q.get("untouched").orElseThrow().state()).isEqualTo(JobState.SCHEDULED); // no job was claimed
    }
}
