package dev.delayq.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.testkit.RedisServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo and the benchmark, like the command line's own commands (delayq-cli's RedisSecretsTest), take the Redis
 * password from a file and never show it, and delete their keys afterwards. Against a private Redis that requires a
 * password.
 */
class HarnessSecretsTest {
    private static final String SECRET = "s3cret-Pw-91";
    private static RedisServer secured;
    private static String hostPort;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        secured = RedisServer.builder().config("requirepass", SECRET).start();
        hostPort = "127.0.0.1:" + secured.port();
        secured.call("AUTH", SECRET);
    }

    @AfterAll
    static void stop() {
        secured.close();
    }

    /** What one in-process run printed and returned. */
    private record Result(int exit, String out, String err) {
    }

    private static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = BenchMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void demoAndBenchTakeThePasswordFromAFileToo() throws Exception {
        Path file = Files.writeString(dir.resolve("pw"), SECRET);
        Result demo = run("demo", "--jobs", "100", "--workers", "2", "--spread", "500ms", "--redis", "redis://" + hostPort,
                "--redis-password-file", file.toString());
        assertThat(demo.exit()).as(demo.out() + demo.err()).isZero();
        assertThat(demo.out()).contains("PASS").contains("redis://:***@" + hostPort + " under prefix dq-demo-");
        assertThat(demo.out() + demo.err()).doesNotContain(SECRET);

        Result bench = run("bench", "--workload", "w4", "--scale", "0.01", "--reps", "1", "--redis", "redis://" + hostPort,
                "--prefix", "sec" + ProcessHandle.current().pid(), "--redis-password-file", file.toString());
        assertThat(bench.exit()).as(bench.err()).isZero();
        assertThat(bench.out()).containsPattern("w4 +Redis bytes/job");
        assertThat(bench.out() + bench.err()).doesNotContain(SECRET);
        assertThat(secured.call("KEYS", "dq-demo-*")).asList().isEmpty();
        assertThat(secured.call("KEYS", "*:bench:*")).asList().isEmpty();
    }
}
