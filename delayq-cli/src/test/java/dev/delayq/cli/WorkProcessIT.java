package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.testkit.RedisServer;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The packaged command line in processes of its own, where a real process matters: a small heap, a worker
 * killed with SIGKILL, credentials in the environment, the jar's version. Runs after package (failsafe).
 */
class WorkProcessIT extends PackagedJarTest {
    @Test
    void fiftyMegabytesWithoutANewlineDoNotGrowASmallHeap() throws Exception {
        assertThat(run("e1", List.of(), "enqueue", "big", "--id", "out", "--redis", redis.uri()).exit()).isZero();
        assertThat(run("e2", List.of(), "enqueue", "big", "--id", "err", "--max-attempts", "1", "--redis", redis.uri())
                .exit()).isZero();
        String command = "if [ \"$DELAYQ_JOB_ID\" = out ]; then head -c 50000000 /dev/zero | tr '\\0' o; "
                + "else head -c 50000000 /dev/zero | tr '\\0' e >&2; exit 3; fi";
        Ran w = run("work", List.of("-Xmx64m"), "work", "big", "--exec", command, "--max-jobs", "2", "--redis", redis.uri());
        assertThat(w.exit()).as(tail(w.err())).isZero();
        assertThat(Files.size(dir.resolve("work.out"))).isGreaterThan(50_000_000L); // copied, in 64 KiB lines
        assertThat(tail(w.err())).endsWith("delayq: worker stopped: 1 completed, 0 retried, 1 dead, 0 recovered, 0 handed back\n");
        assertThat(w.err()).doesNotContain("OutOfMemoryError");
        assertThat(job("big", "out").get("state").asText()).isEqualTo("done");
        JsonNode err = job("big", "err");
        assertThat(err.get("state").asText()).isEqualTo("dead");
        assertThat(err.get("error").asText()).startsWith("exit 3: eeee").doesNotContain("\tat ").doesNotContain("java.");
    }

    private static String tail(String s) {
        return s.length() <= 2000 ? s : s.substring(s.length() - 2000);
    }

    @ParameterizedTest
    @ValueSource(strings = {"auto", "watchdog"})
    void aJobsProcessesDieWithAWorkerKilledBySigkill(String isolation) throws Exception {
        String queue = "k9-" + isolation;
        // "auto" is the parent-death signal wherever setpriv has it; where it does not, the worker falls back to the
        // watchdog, which the other case tests: say so in the skip summary rather than pass on the watchdog twice.
        assumeTrue(isolation.equals("watchdog") || JobProcesses.detect().mode() == JobProcesses.Mode.GROUP_PDEATHSIG,
                "setpriv --pdeathsig does not work here (util-linux 2.33 or newer has it): the parent-death path is untested");
        assertThat(run("e-" + isolation, List.of(), "enqueue", queue, "--id", "k", "--redis", redis.uri()).exit()).isZero();
        Path child = dir.resolve("child.pid");
        Path shell = dir.resolve("shell.pid");
        Process worker = start("w-" + isolation, List.of("-Ddelayq.exec.isolation=" + isolation), Map.of(),
                "work", queue, "--exec", "sleep 308 & echo $! > " + child + "; (sleep 309 &); echo $$ > " + shell
                        + "; sleep 310", "--redis", redis.uri());
        List<ProcessHandle> jobs = new ArrayList<>();
        try {
            await().atMost(DEADLINE).until(() -> Files.exists(shell) && Files.size(shell) > 0 && Files.size(child) > 0
                    && sleepers("sleep 309").size() == 1);
            jobs.add(ProcessHandle.of(Long.parseLong(Files.readString(child).strip())).orElseThrow());
            jobs.add(ProcessHandle.of(Long.parseLong(Files.readString(shell).strip())).orElseThrow());
            jobs.addAll(sleepers("sleep 309"));
            assertThat(jobs).hasSize(3).allMatch(ProcessHandle::isAlive);
            String err = read(dir.resolve("w-" + isolation + ".err"));
            if (isolation.equals("watchdog")) {
                assertThat(err).contains("a process group per job (watchdog)");
            } else {
                assertThat(err).contains("a process group per job").doesNotContain("(watchdog)");
            }
            worker.destroyForcibly(); // SIGKILL: no shutdown hook runs
            assertThat(worker.waitFor(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            worker.destroyForcibly();
        }
        // The parent-death signal acts at once; the watchdog looks every second.
        await().atMost(Duration.ofSeconds(30)).until(() -> jobs.stream().noneMatch(ProcessHandle::isAlive));
        assertThat(sleepers("sleep 309")).isEmpty();
    }

    /** Processes whose command line ends with {@code text} (an orphan cannot be found any other way). */
    private static List<ProcessHandle> sleepers(String text) {
        return ProcessHandle.allProcesses().filter(h -> h.info().commandLine().map(c -> c.endsWith(text)).orElse(false))
                .toList();
    }

    @Test
    void jobsNeverSeeCredentialsFromTheWorkersEnvironment() throws Exception {
        String secret = "env-Secret-4711";
        try (RedisServer secured = RedisServer.builder().config("requirepass", secret).start()) {
            String url = "redis://:" + secret + "@127.0.0.1:" + secured.port();
            Map<String, String> env = Map.of("DELAYQ_REDIS_URL", url, "DELAYQ_REDIS_PASSWORD", secret,
                    "APP_REDIS", "cache at " + url, "APP_PLAIN", "kept");
            Process e = start("env-enqueue", List.of(), env, "enqueue", "envq", "--id", "e1");
            assertThat(finish("env-enqueue", e).exit()).isZero();
            Path out = dir.resolve("job-env.txt");
            Process w = start("env-work", List.of(), env, "work", "envq", "--exec", "env > " + out, "--exit-when-idle", "1s");
            Ran r = finish("env-work", w);
            assertThat(r.exit()).as(r.err()).isZero();
            String jobEnv = Files.readString(out);
            assertThat(jobEnv).contains("DELAYQ_JOB_ID=e1").contains("APP_PLAIN=kept").doesNotContain(secret)
                    .doesNotContain("DELAYQ_REDIS_URL").doesNotContain("DELAYQ_REDIS_PASSWORD").doesNotContain("APP_REDIS");
            assertThat(r.err()).doesNotContain(secret).doesNotContain("warning") // not in the arguments: no warning
                    .contains("Redis redis://:***@127.0.0.1:" + secured.port());
        }
    }

    @Test
    void aHugeJsonlLineIsRefusedInASmallHeap() throws Exception {
        ProcessBuilder pb = new ProcessBuilder(javaBinary(), "-Xmx64m", "-jar", JAR.toString(), "enqueue", "huge", "--jsonl",
                "-", "--redis", redis.uri(), "--prefix", PREFIX)
                .redirectOutput(dir.resolve("jsonl.out").toFile()).redirectError(dir.resolve("jsonl.err").toFile());
        Process p = pb.start();
        try (OutputStream in = p.getOutputStream()) {
            in.write("{\"id\":\"huge\",\"payload\":\"".getBytes(StandardCharsets.UTF_8));
            byte[] chunk = new byte[1 << 20];
            Arrays.fill(chunk, (byte) 'x');
            for (int i = 0; i < 200; i++) { // 200 MiB on one line
                in.write(chunk);
            }
            in.write("\"}\n{\"id\":\"fine\"}\n".getBytes(StandardCharsets.UTF_8));
        }
        Ran r = finish("jsonl", p);
        assertThat(r.exit()).as(r.err()).isEqualTo(Exit.FAILED);
        assertThat(r.out().lines().toList()).containsExactly("error 1 line is longer than 1589248 bytes (the longest a "
                + "job can be as JSON): the payload limit is 262144 bytes (256 KiB); raise it with --max-payload BYTES "
                + "(up to 256m)", "created fine");
        assertThat(r.err()).doesNotContain("OutOfMemoryError");
    }

    /**
     * What {@code work} prints on stderr, from the shaded jar with its slf4j-simple settings: the start line, each failed
     * attempt once in the library's format (dev.delayq.jobs, docs/logging.md), the command's own stderr lines, the
     * summary; a success prints nothing at the default level.
     */
    @Test
    void eachFailedAttemptIsOneWarningBetweenTheStartAndSummaryLines() throws Exception {
        assertThat(run("lf-e1", List.of(), "enqueue", "failures", "--id", "order-731:timeout", "--name", "payment timeout",
                "--max-attempts", "2", "--redis", redis.uri()).exit()).isZero();
        assertThat(run("lf-e2", List.of(), "enqueue", "failures", "--id", "fine", "--redis", redis.uri()).exit()).isZero();
        Ran w = run("lf-work", List.of(), "work", "failures", "--exec",
                "[ \"$DELAYQ_JOB_ID\" = fine ] || { echo \"read timed out\" >&2; echo 'second line' >&2; exit 3; }",
                "--backoff-base", "10ms", "--backoff-cap", "10ms", "--max-jobs", "3", "--redis", redis.uri());
        assertThat(w.exit()).as(w.err()).isZero();
        List<String> lines = w.err().lines().toList();
        List<String> worker = lines.stream().filter(l -> !l.startsWith("[job ")).toList();
        assertThat(worker).as(w.err()).hasSize(4);
        assertThat(worker.get(0)).startsWith("delayq: working on queue 'failures' (prefix 'it");
        String failed = "\\d{2}:\\d{2}:\\d{2}\\.\\d{3} WARN dev\\.delayq\\.jobs - job failed: queue=failures "
                + "id=order-731:timeout name=\"payment timeout\" attempt=%s next=%s error=\"exit 3: read timed out\"";
        assertThat(worker.get(1)).matches(String.format(failed, "1/2",
                "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z"));
        assertThat(worker.get(2)).matches(String.format(failed, "2/2", "dead"));
        assertThat(worker.get(3)).isEqualTo("delayq: worker stopped: 1 completed, 1 retried, 1 dead, 0 recovered, 0 handed back");
        // The command's own stderr, as it wrote it, and nothing else names the job: no failure is printed twice.
        assertThat(lines).filteredOn(l -> l.startsWith("[job ")).containsExactly(
                "[job order-731:timeout] read timed out", "[job order-731:timeout] second line",
                "[job order-731:timeout] read timed out", "[job order-731:timeout] second line");
        assertThat(w.err()).doesNotContain("fine");
        assertThat(job("failures", "order-731:timeout").get("state").asText()).isEqualTo("dead");
    }

    @Test
    void versionFromTheShadedJar() throws Exception {
        String version = System.getProperty("delayq.version");
        assertThat(version).isNotBlank();
        Ran top = run("version", List.of(), "--version");
        assertThat(top.exit()).isZero();
        assertThat(top.out()).startsWith("delayq " + version + "\n");
        Ran sub = run("work-version", List.of(), "work", "--version");
        assertThat(sub.exit()).isZero();
        assertThat(sub.out()).startsWith("delayq " + version + "\n");
    }
}
