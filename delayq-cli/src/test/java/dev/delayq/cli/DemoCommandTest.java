package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.testkit.RedisServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The demo runs in the suite with a small number of jobs and must pass. */
class DemoCommandTest {

    private static Cli.Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Cli.Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void demoOnAPrivateRedisLosesNothingAndClaimsNothingTwice() {
        Cli.Result r = run("demo", "--jobs", "400", "--workers", "3", "--spread", "1s");
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

    @Test
    void demoOnAGivenRedisCleansUpItsKeys() {
        try (RedisServer server = RedisServer.start()) {
            Cli.Result r = run("demo", "--jobs", "100", "--workers", "2", "--spread", "500ms", "--redis", server.uri());
            assertThat(r.exit()).as(r.out() + r.err()).isZero();
            assertThat(r.out()).contains("under prefix dq-demo-").contains("PASS");
            assertThat(server.call("DBSIZE")).isEqualTo(0L);
        }
    }

    @Test
    void badOptionsAreRefusedWithTheAllowedRange() {
        Cli.Result r = run("demo", "--workers", "1");
        assertThat(r.exit()).isEqualTo(Exit.USAGE);
        assertThat(r.err().strip()).isEqualTo("delayq: --workers is 1: it must be between 2 and 64");
    }
}
