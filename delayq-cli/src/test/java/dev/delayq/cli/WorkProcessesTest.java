package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobInfo;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.testkit.RedisExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code work --exec}: what becomes of a job's processes and output. Real shell commands, checked with
 * {@link ProcessHandle}: nothing a job started outlives it.
 */
class WorkProcessesTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();
    private static final Duration GONE = Duration.ofSeconds(20);

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
        List<String> args = new ArrayList<>(List.of("work", "jobs", "--exec", command));
        args.addAll(List.of(options));
        return cli.run(args.toArray(new String[0]));
    }

    /** The pids the job wrote, one file per background process. */
    private List<Long> pids(String... files) throws IOException {
        List<Long> out = new ArrayList<>();
        for (String f : files) {
            out.add(Long.parseLong(Files.readString(dir.resolve(f)).strip()));
        }
        return out;
    }

    private static void awaitGone(List<Long> pids) {
        await().atMost(GONE).until(() -> pids.stream().noneMatch(p -> ProcessHandle.of(p).map(ProcessHandle::isAlive)
                .orElse(false)));
    }

    @Test
    void backgroundChildrenOfAFinishedJobAreEnded() throws Exception {
        q.enqueue(Job.builder().id("bg").build());
        q.enqueue(Job.builder().id("double-fork").build());
        // One leaves a background child, the other an orphan (its parent subshell exits at once).
        String command = "if [ \"$DELAYQ_JOB_ID\" = bg ]; then sleep 301 & echo $! > " + dir + "/bg.pid; exit 0; "
                + "else (sleep 302 & echo $! > " + dir + "/orphan.pid); exit 0; fi";
        Cli.Result r = work(command, "--exit-when-idle", "1s");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(q.inspector().stats().done()).isEqualTo(2);
        awaitGone(pids("bg.pid", "orphan.pid"));
    }

    @Test
    void jobTimeoutEndsTheWholeGroupAndFailsTheAttempt() throws Exception {
        q.enqueue(Job.builder().id("slow").maxAttempts(2).build());
        String command = "sleep 303 & echo $! > " + dir + "/child.pid; echo $$ > " + dir + "/shell.pid; "
                + "trap '' TERM; sleep 304";
        Cli.Result r = work(command, "--job-timeout", "1500ms", "--max-jobs", "1");
        assertThat(r.exit()).as(r.err()).isZero();
        JobInfo job = q.get("slow").orElseThrow();
        assertThat(job.state()).isEqualTo(JobState.SCHEDULED); // retried per policy
        assertThat(job.attempt()).isEqualTo(1);
        assertThat(job.lastError()).isEqualTo("timed out after 1s500ms");
        assertThat(r.err()).contains("job timeout 1s500ms");
        awaitGone(pids("child.pid", "shell.pid")); // the shell ignored SIGTERM: SIGKILL after the grace
    }

    @Test
    void aJobRunningWhenTheWorkerStopsIsHandedBackWithItsProcessesEnded() throws Exception {
        // Claimed in enqueue order, two at a time: quick-1 and stuck first, then quick-2; after the second quick
        // one --max-jobs stops the worker while stuck still runs: it is stopped and handed back.
        q.enqueue(Job.builder().id("quick-1").build());
        q.enqueue(Job.builder().id("stuck").build());
        q.enqueue(Job.builder().id("quick-2").build());
        String command = "if [ \"$DELAYQ_JOB_ID\" = stuck ]; then sleep 305 & echo $! > " + dir + "/stuck.pid; "
                + "exec sleep 306; fi";
        // A grace of 1s, not 0s: with none, the worker may also hand back the quick job whose command has only just
        // exited (the library counts it as running until its handler thread is done).
        Cli.Result r = work(command, "--max-jobs", "2", "--concurrency", "2", "--shutdown-grace", "1s");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(q.get("quick-1").orElseThrow().state()).isEqualTo(JobState.DONE);
        assertThat(q.get("quick-2").orElseThrow().state()).isEqualTo(JobState.DONE);
        JobInfo stuck = q.get("stuck").orElseThrow();
        assertThat(stuck.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(stuck.attempt()).as("a handed-back attempt is not counted").isZero();
        assertThat(r.err()).contains("delayq: worker stopped: 2 completed, 0 retried, 0 dead, 0 recovered, 1 handed back");
        awaitGone(pids("stuck.pid"));
    }

    @Test
    void stderrLinesCarryTheJobIdAndHugeLinesAreCopiedInBoundedPieces() throws Exception {
        q.enqueue(Job.builder().id("order-1").build());
        // 1 MiB on stderr without a newline, then a line; 1 MiB on stdout without a newline.
        String command = "echo 'first line' >&2; head -c 1048576 /dev/zero | tr '\\0' e >&2; echo >&2; "
                + "echo 'last line' >&2; head -c 1048576 /dev/zero | tr '\\0' o; exit 3";
        Cli.Result r = work(command, "--max-jobs", "1");
        assertThat(r.exit()).as(r.err()).isZero();
        List<String> err = r.err().lines().toList();
        assertThat(err).contains("[job order-1] first line", "[job order-1] last line");
        List<String> pieces = err.stream().filter(l -> l.startsWith("[job order-1] eee")).toList();
        assertThat(pieces).hasSize(16); // 1 MiB in 64 KiB pieces, each on its own line with the prefix
        assertThat(pieces).allSatisfy(l -> assertThat(l).hasSize("[job order-1] ".length() + OutputPump.MAX_LINE));
        List<String> out = r.out().lines().toList();
        assertThat(out).hasSize(16).allSatisfy(l -> assertThat(l).matches("o{65536}"));
        JobInfo job = q.get("order-1").orElseThrow();
        // The command's stderr tail, nothing of Java's.
        assertThat(job.lastError()).startsWith("exit 3: eeee").endsWith("eee\nlast line").doesNotContain("\tat ");
    }

    @Test
    void startAndSummaryLinesWithoutVerbose() {
        q.enqueue(Job.builder().id("a").build());
        q.enqueue(Job.builder().id("b").maxAttempts(1).build());
        Cli.Result r = work("[ \"$DELAYQ_JOB_ID\" = a ]", "--exit-when-idle", "1s", "--concurrency", "3");
        assertThat(r.exit()).as(r.err()).isZero();
        List<String> err = r.err().lines().toList();
        assertThat(err).hasSize(2);
        assertThat(err.get(0)).startsWith("delayq: working on queue 'jobs' (prefix '" + REDIS.prefix()
                + "'): concurrency 3, lease 30s, Redis " + REDIS.uri() + ", a process group per job");
        assertThat(err.get(1)).isEqualTo("delayq: worker stopped: 1 completed, 0 retried, 1 dead, 0 recovered, 0 handed back");
    }

    @Test
    void anUnknownQueueIsWarnedAboutAndStillWorkedOn() {
        q.enqueue(Job.builder().id("x").build()); // "jobs" is known
        Cli.Result r = cli.run("work", "jbos", "--exec", "true", "--exit-when-idle", "1s");
        assertThat(r.exit()).as(r.err()).isZero();
        List<String> err = r.err().lines().toList();
        assertThat(err.get(0)).isEqualTo("delayq: warning: queue 'jbos' is not known under prefix '" + REDIS.prefix()
                + "' (known: jobs); did you mean 'jobs'?");
        assertThat(err.get(1)).startsWith("delayq: working on queue 'jbos'")
                .endsWith("; the queue is not known yet (see the warning above)");
    }

    @Test
    void outOfBoundsSettingsAreRefusedInTheCommandLinesUnits() {
        Cli.Result lease = work("true", "--lease", "25h");
        assertThat(lease.exit()).isEqualTo(Exit.USAGE);
        assertThat(lease.err()).isEqualTo("delayq: --lease is 1d1h: it must be between 100ms and 1d\n");

        Cli.Result cap = work("true", "--backoff-cap", "31d");
        assertThat(cap.exit()).isEqualTo(Exit.USAGE);
        assertThat(cap.err()).isEqualTo("delayq: --backoff-cap is 31d: it must be between 1ms and 30d\n");

        Cli.Result huge = work("true", "--lease", "100000000d");
        assertThat(huge.exit()).isEqualTo(Exit.USAGE);
        assertThat(huge.err()).startsWith("delayq: Invalid value for option '--lease': duration '100000000d' is too long");

        Cli.Result timeout = work("true", "--job-timeout", "0s");
        assertThat(timeout.exit()).isEqualTo(Exit.USAGE);
        assertThat(timeout.err()).isEqualTo("delayq: --job-timeout is 0s: it must be between 1ms and 1d\n");
    }
}
