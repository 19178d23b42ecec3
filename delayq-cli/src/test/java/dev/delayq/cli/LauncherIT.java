package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.testkit.RedisServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end through the real launcher ({@code ../delayq} from the module directory) and the shaded jar, in
 * separate processes: a bulk enqueue, two worker processes draining the queue at once, and stats. Runs in
 * the integration-test phase, after the jar is packaged (so the launcher finds it fresh and does not build).
 */
class LauncherIT {
    private static final int JOBS = 200;
    private static final Duration DEADLINE = Duration.ofMinutes(3);

    @TempDir
    Path dir;

    private record Ran(int exit, String out, String err) {
    }

    @BeforeAll
    static void onlyAfterPackaging() {
        // Surefire also matches this class when run with -Dtest='dev.delayq.cli.**'; there the jar may not exist
        // yet and the launcher would start a Maven build of its own. Failsafe sets the property.
        assumeTrue(Boolean.getBoolean("delayq.it"), "runs in the integration-test phase (failsafe), after package");
    }

    @Test
    void twoWorkerProcessesRunEveryJobExactlyOnce() throws Exception {
        Path launcher = Path.of("..", "delayq");
        assertThat(launcher).isExecutable();
        try (RedisServer redis = RedisServer.start()) {
            List<String> target = List.of("--redis", redis.uri(), "--prefix", "it" + ProcessHandle.current().pid());
            List<String> lines = new ArrayList<>();
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < JOBS; i++) {
                String id = String.format("job-%03d", i);
                ids.add(id);
                lines.add("{\"id\":\"" + id + "\",\"payload\":\"payload " + i + "\"}");
            }
            Path jobs = Files.write(dir.resolve("jobs.jsonl"), lines, StandardCharsets.UTF_8);

            Ran enqueue = run(launcher, "enqueue", target, "it", "--jsonl", jobs.toString());
            assertThat(enqueue.exit()).as(enqueue.err()).isZero();
            assertThat(enqueue.err()).doesNotContain("building");
            List<String> created = new ArrayList<>();
            ids.forEach(id -> created.add("created " + id));
            assertThat(enqueue.out().lines().toList()).containsExactlyElementsOf(created);

            Path ran = dir.resolve("ran.txt");
            List<Process> workers = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                workers.add(start(launcher, "work", target, "w" + w, "it", "--exec", "echo $DELAYQ_JOB_ID >> " + ran,
                        "--exit-when-idle", "3s"));
            }
            try {
                for (int w = 0; w < workers.size(); w++) {
                    Process p = workers.get(w);
                    assertThat(p.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS))
                            .as("worker %d exits within %s", w, DEADLINE).isTrue();
                    assertThat(p.exitValue()).as(read(dir.resolve("w" + w + ".err"))).isZero();
                }
            } finally {
                workers.forEach(Process::destroyForcibly);
            }
            List<String> executed = Files.readAllLines(ran);
            assertThat(executed).hasSize(JOBS).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(ids);

            Ran stats = run(launcher, "stats", target, "it", "--json");
            assertThat(stats.exit()).as(stats.err()).isZero();
            JsonNode s = Json.MAPPER.readTree(stats.out());
            assertThat(s.get("queue").asText()).isEqualTo("it");
            assertThat(s.get("scheduled").asLong()).isZero();
            assertThat(s.get("processing").asLong()).isZero();
            assertThat(s.get("done").asLong()).isEqualTo(JOBS);
            assertThat(s.get("totals").get("enqueued").asLong()).isEqualTo(JOBS);
            assertThat(s.get("totals").get("completed").asLong()).isEqualTo(JOBS);
            assertThat(s.get("totals").get("retried").asLong()).isZero();
        }
    }

    @Test
    void sigtermLetsRunningJobsFinishWithinTheGraceAndHandsBackTheRest() throws Exception {
        Path launcher = Path.of("..", "delayq");
        try (RedisServer redis = RedisServer.start()) {
            List<String> target = List.of("--redis", redis.uri(), "--prefix", "sig" + ProcessHandle.current().pid());
            assertThat(run(launcher, "enqueue", target, "quick", "--id", "short-job").exit()).isZero();
            assertThat(run(launcher, "enqueue", target, "stuck", "--id", "long-job").exit()).isZero();
            Path started = dir.resolve("started");
            Path pid = dir.resolve("long.pid");
            Files.createDirectory(started);
            // Each job says it started; the short one then needs 2 s, the long one would need a minute.
            Process quick = start(launcher, "work", target, "quick", "quick", "--exec",
                    "touch " + started + "/$DELAYQ_JOB_ID; sleep 2", "--shutdown-grace", "30s");
            Process stuck = start(launcher, "work", target, "stuck", "stuck", "--exec",
                    "touch " + started + "/$DELAYQ_JOB_ID; echo $$ > " + pid + "; exec sleep 60", "--shutdown-grace", "1s");
            try {
                await().atMost(DEADLINE).until(() -> Files.exists(started.resolve("short-job"))
                        && Files.exists(started.resolve("long-job")) && Files.exists(pid) && Files.size(pid) > 0);
                quick.destroy(); // SIGTERM: the launcher execs java, so this is the worker itself
                stuck.destroy();
                assertThat(quick.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
                assertThat(stuck.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
            } finally {
                quick.destroyForcibly();
                stuck.destroyForcibly();
            }
            // Stopped gracefully: exit 0, not the signal's status (which a shell reports as "Terminated").
            assertThat(quick.exitValue()).isZero();
            assertThat(stuck.exitValue()).isZero();
            assertThat(read(dir.resolve("stuck.err"))).contains("handing back").doesNotContain("Terminated")
                    .endsWith("delayq: worker stopped: 0 completed, 0 retried, 0 dead, 0 recovered, 1 handed back\n");
            assertThat(read(dir.resolve("quick.err")))
                    .endsWith("delayq: worker stopped: 1 completed, 0 retried, 0 dead, 0 recovered, 0 handed back\n");

            JsonNode done = Json.MAPPER.readTree(run(launcher, "job", target, "quick", "short-job", "--json").out());
            assertThat(done.get("state").asText()).as("finished within the grace, and acknowledged").isEqualTo("done");
            JsonNode back = Json.MAPPER.readTree(run(launcher, "job", target, "stuck", "long-job", "--json").out());
            assertThat(back.get("state").asText()).as("handed back").isEqualTo("scheduled");
            assertThat(back.get("attempt").asInt()).as("a handed-back attempt is not counted").isZero();
            long sleeper = Long.parseLong(Files.readString(pid).strip());
            await().atMost(Duration.ofSeconds(30)).until(() -> ProcessHandle.of(sleeper).map(h -> !h.isAlive()).orElse(true));
        }
    }

    /**
     * The launcher's first-use build, with a stand-in for Maven on the PATH (a real build here would take minutes and
     * rewrite this module's own jar): DELAYQ_MAVEN_REPO becomes -Dmaven.repo.local (one argument, blanks and all),
     * MAVEN_OPTS reaches Maven untouched, and the progress lines say which local repository the build uses.
     */
    @Test
    void theFirstUseBuildUsesTheLocalRepositoryOfDelayqMavenRepoAndKeepsMavenOpts() throws Exception {
        Path tree = Files.createDirectories(dir.resolve("clone"));
        Path launcher = launcherIn(tree);
        Path jar = Path.of("target", "delayq.jar").toAbsolutePath();
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path seen = dir.resolve("mvn-args");
        Path opts = dir.resolve("mvn-opts");
        Path mvn = bin.resolve("mvn");
        Files.writeString(mvn, "#!/bin/sh\n"
                + "printf '%s\\n' \"$@\" > '" + seen + "'\n"
                + "printf '%s' \"$MAVEN_OPTS\" > '" + opts + "'\n"
                + "mkdir -p delayq-cli/target && cp '" + jar + "' delayq-cli/target/delayq.jar\n"
                + "echo '[INFO] Building delayq-cli 0.1.0-SNAPSHOT'\n"
                + "echo '[INFO] BUILD SUCCESS'\n");
        assertThat(mvn.toFile().setExecutable(true)).isTrue();
        Path repo = dir.resolve("m2 repo");

        Ran built = runWith(launcher, bin, java.util.Map.of("DELAYQ_MAVEN_REPO", repo.toString(), "MAVEN_OPTS", "-Xmx300m"),
                "first", "--version");
        assertThat(built.exit()).as(built.err()).isZero();
        assertThat(built.out()).startsWith("delayq ");
        assertThat(built.err()).contains("delayq: building the command line: one Maven build, tests skipped, about a minute",
                "delayq: using Maven local repository " + repo + " (DELAYQ_MAVEN_REPO), MAVEN_OPTS=-Xmx300m\n",
                "  Building delayq-cli", "delayq: built in ");
        assertThat(Files.readAllLines(seen)).containsExactly("-Dmaven.repo.local=" + repo, "-B", "-DskipTests",
                "-Dmaven.source.skip=true", "-Dmaven.javadoc.skip=true", "-pl",
                "delayq-cli", "-am", "package");
        assertThat(Files.readString(opts)).isEqualTo("-Xmx300m");

        Ran again = runWith(launcher, bin, java.util.Map.of("DELAYQ_MAVEN_REPO", repo.toString()), "again", "--version");
        assertThat(again.exit()).as(again.err()).isZero();
        assertThat(again.err()).as("the jar is fresh: no build").doesNotContain("building");

        Files.delete(tree.resolve("delayq-cli/target/delayq.jar"));
        Files.delete(seen);
        Ran defaults = runWith(launcher, bin, java.util.Map.of(), "defaults", "--version");
        assertThat(defaults.exit()).as(defaults.err()).isZero();
        assertThat(defaults.err()).contains("delayq: using Maven's default local repository (DELAYQ_MAVEN_REPO=DIR for another)\n");
        assertThat(Files.readAllLines(seen)).containsExactly("-B", "-DskipTests", "-Dmaven.source.skip=true",
                "-Dmaven.javadoc.skip=true", "-pl", "delayq-cli", "-am", "package");
    }

    /**
     * "demo" and "bench" are not in the published command line (it carries no test harness): the launcher builds and
     * runs the harness jar of delayq-bench for them, wherever the command stands among the global options; every other
     * command runs the command line's jar. The stand-in for Maven copies this module's jar where the harness jar goes, so
     * the command line it runs says that the command is not in this jar.
     */
    @Test
    void demoAndBenchBuildAndRunTheHarnessJar() throws Exception {
        Path tree = Files.createDirectories(dir.resolve("harness"));
        Path launcher = launcherIn(tree);
        Path jar = Path.of("target", "delayq.jar").toAbsolutePath();
        Path bin = Files.createDirectories(dir.resolve("harness-bin"));
        Path seen = dir.resolve("harness-mvn-args");
        Path mvn = bin.resolve("mvn");
        Files.writeString(mvn, "#!/bin/sh\n"
                + "printf '%s\\n' \"$@\" > '" + seen + "'\n"
                + "mkdir -p delayq-cli/target delayq-bench/target\n"
                + "case \"$*\" in *delayq-bench*) cp '" + jar + "' delayq-bench/target/delayq-bench.jar ;; "
                + "*) cp '" + jar + "' delayq-cli/target/delayq.jar ;; esac\n");
        assertThat(mvn.toFile().setExecutable(true)).isTrue();

        Ran demo = runWith(launcher, bin, java.util.Map.of(), "harness-demo", "--prefix", "p", "--timeout", "5s", "demo");
        assertThat(Files.readAllLines(seen)).containsSubsequence("-pl", "delayq-bench", "-am", "package");
        assertThat(demo.err()).contains("delayq: building the command line with the demo and the benchmark (delayq-bench)",
                "delayq: 'demo' is not in this jar");
        assertThat(Files.exists(tree.resolve("delayq-bench/target/delayq-bench.jar"))).isTrue();

        Ran stats = runWith(launcher, bin, java.util.Map.of(), "harness-other", "--prefix", "bench", "--version");
        assertThat(stats.exit()).as(stats.err()).isZero();
        assertThat(Files.readAllLines(seen)).as("a value 'bench' is not the command").containsSubsequence("-pl", "delayq-cli");
    }

    /** A copy of the launcher in {@code tree}, a stand-in for a clone (the launcher builds and runs what is there). */
    private static Path launcherIn(Path tree) throws java.io.IOException {
        return Files.copy(Path.of("..", "delayq"), tree.resolve("delayq"), java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
    }

    /** The launcher with {@code bin} first on the PATH and {@code env} set (and no DELAYQ_ or MAVEN_ variable inherited). */
    private Ran runWith(Path launcher, Path bin, java.util.Map<String, String> env, String name, String... args)
            throws Exception {
        List<String> cmd = new ArrayList<>(List.of(launcher.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(dir.resolve(name + ".out").toFile())
                .redirectError(dir.resolve(name + ".err").toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("DELAYQ_") || k.startsWith("MAVEN_"));
        pb.environment().put("PATH", bin + java.io.File.pathSeparator + System.getenv("PATH"));
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the launcher did not end within " + DEADLINE + ": " + read(dir.resolve(name + ".err")));
        }
        return new Ran(p.exitValue(), read(dir.resolve(name + ".out")), read(dir.resolve(name + ".err")));
    }

    private Ran run(Path launcher, String command, List<String> target, String... args) throws Exception {
        String name = command + "-" + System.nanoTime();
        Process p = start(launcher, command, target, name, args);
        if (!p.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("'delayq " + command + "' did not end within " + DEADLINE + ": "
                    + read(dir.resolve(name + ".err")));
        }
        return new Ran(p.exitValue(), read(dir.resolve(name + ".out")), read(dir.resolve(name + ".err")));
    }

    /** Starts the launcher with output to files (a pipe nobody reads could block it). */
    private Process start(Path launcher, String command, List<String> target, String name, String... args)
            throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(launcher.toString());
        cmd.add(command);
        cmd.addAll(List.of(args));
        cmd.addAll(target);
        return new ProcessBuilder(cmd)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(dir.resolve(name + ".out").toFile())
                .redirectError(dir.resolve(name + ".err").toFile())
                .start();
    }

    private static String read(Path file) throws IOException {
        return Files.exists(file) ? Files.readString(file) : "";
    }
}
