package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.testkit.RedisServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the packaged command line's process tests share: a Redis server of the class, the shaded jar started in a
 * process of its own with its output in files, and waiting for it. Runs after package (failsafe); the tests are
 * in classes of their own so that failsafe's two JVMs share them out.
 */
abstract class PackagedJarTest {
    static final Duration DEADLINE = Duration.ofMinutes(2);
    static final Path JAR = Path.of("target", "delayq.jar");
    /** The prefix every command started by {@link #start} runs under. */
    static final String PREFIX = "it" + ProcessHandle.current().pid();
    static RedisServer redis;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        assumeTrue(Boolean.getBoolean("delayq.it"), "runs in the integration-test phase (failsafe), after package");
        redis = RedisServer.start();
    }

    @AfterAll
    static void stop() {
        if (redis != null) {
            redis.close();
        }
    }

    record Ran(int exit, String out, String err) {
    }

    /** {@code java [jvm...] -jar delayq.jar args... --redis R --prefix P}, output to files, stdin from /dev/null. */
    Process start(String name, List<String> jvm, Map<String, String> env, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(javaBinary()));
        cmd.addAll(jvm);
        cmd.addAll(List.of("-jar", JAR.toString()));
        cmd.addAll(Arrays.asList(args));
        cmd.addAll(List.of("--prefix", PREFIX));
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(dir.resolve(name + ".out").toFile())
                .redirectError(dir.resolve(name + ".err").toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("DELAYQ_"));
        pb.environment().putAll(env);
        return pb.start();
    }

    Ran run(String name, List<String> jvm, String... args) throws Exception {
        Process p = start(name, jvm, Map.of(), args);
        return finish(name, p);
    }

    Ran finish(String name, Process p) throws Exception {
        if (!p.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(name + " did not end within " + DEADLINE + ": " + read(dir.resolve(name + ".err")));
        }
        return new Ran(p.exitValue(), read(dir.resolve(name + ".out")), read(dir.resolve(name + ".err")));
    }

    static String javaBinary() {
        return ProcessHandle.current().info().command().orElse("java");
    }

    static String read(Path file) throws IOException {
        return Files.exists(file) ? Files.readString(file) : "";
    }

    JsonNode job(String queue, String id) throws Exception {
        Ran r = run("job-" + id, List.of(), "job", queue, id, "--json", "--redis", redis.uri());
        assertThat(r.exit()).as(r.err()).isZero();
        return Json.MAPPER.readTree(r.out());
    }
}
