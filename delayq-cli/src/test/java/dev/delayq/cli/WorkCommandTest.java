package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobInfo;
import dev.delayq.JobState;
import dev.delayq.JobQueue;
import dev.delayq.testkit.RedisExtension;
import java.io.IOException;
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
        assertThat(q.stats().done()).isEqualTo(3);
        assertThat(q.stats().scheduled() + q.stats().processing()).isZero();
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
        assertThat(r.err()).contains("job doomed attempt 1/3: exit 3, will retry")
                .contains("job doomed attempt 3/3: exit 3, dead (attempts used up)");
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
        assertThat(q.stats().done()).isEqualTo(lines(ran).size());
        assertThat(q.stats().processing()).isZero();
        assertThat(q.stats().scheduled()).isEqualTo(5 - lines(ran).size());
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
}
