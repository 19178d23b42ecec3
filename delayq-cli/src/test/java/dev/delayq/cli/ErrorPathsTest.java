package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.delayq.testkit.RedisServer;
import java.io.ByteArrayInputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the operator commands do when Redis is unreachable, refuses the password or stops answering: one line
 * on stderr naming the server, exit status 3, never a hang.
 */
class ErrorPathsTest {
    private static final Duration BOUND = Duration.ofSeconds(60);

    /** One invocation of every operator command, each needing Redis. */
    private static final List<String[]> COMMANDS = List.of(
            new String[] {"enqueue", "q", "--id", "a"},
            new String[] {"job", "q", "a"},
            new String[] {"list", "q", "--state", "scheduled"},
            new String[] {"cancel", "q", "a"},
            new String[] {"reschedule", "q", "a", "--delay", "1m"},
            new String[] {"retry", "q", "a"},
            new String[] {"purge", "q"},
            new String[] {"check", "q"},
            new String[] {"work", "q", "--exec", "true", "--exit-when-idle", "1s"});

    @Test
    void unreachableRedisIsExitThreeNamingTheServer() {
        int port = RedisServer.freePort(); // nothing listens there
        Cli cli = new Cli("redis://127.0.0.1:" + port, "x");
        for (String[] command : COMMANDS) {
            Cli.Result r = cli.start(new ByteArrayInputStream(new byte[0]), with(command, "--timeout", "2s")).await(BOUND);
            assertThat(r.exit()).as(command[0]).isEqualTo(Exit.REDIS);
            assertThat(r.err()).as(command[0]).isEqualTo("delayq: cannot reach Redis at redis://127.0.0.1:" + port
                    + " (connect): Connection refused\n");
        }
        Cli.Result verbose = cli.run("job", "q", "a", "--verbose", "--timeout", "2s");
        assertThat(verbose.err()).contains("\tat ");
    }

    @Test
    void missingOrWrongPasswordIsExitThree() {
        try (RedisServer secured = RedisServer.builder().config("requirepass", "s3cret").start()) {
            String host = "127.0.0.1:" + secured.port();
            Cli.Result none = new Cli("redis://" + host, "p").run("job", "q", "a");
            assertThat(none.exit()).isEqualTo(Exit.REDIS);
            assertThat(none.err()).startsWith("delayq: Redis at redis://" + host + " refused the credentials")
                    .doesNotContain("\tat ").hasLineCount(1);

            Cli.Result wrong = new Cli("redis://:wrong@" + host, "p").run("enqueue", "q", "--id", "a");
            assertThat(wrong.exit()).isEqualTo(Exit.REDIS);
            assertThat(wrong.err()).startsWith("delayq: Redis at redis://" + host + " refused the credentials")
                    .doesNotContain("wrong@").hasLineCount(1);

            Cli.Result right = new Cli("redis://:s3cret@" + host, "p").run("enqueue", "q", "--id", "a");
            assertThat(right.exit()).isZero();
            assertThat(right.out()).isEqualTo("created a\n");
        }
    }

    @Test
    void aPausedRedisFailsEveryCommandWithinTheTimeout() {
        try (RedisServer server = RedisServer.start()) {
            Cli cli = new Cli(server.uri(), "p");
            server.pause();
            try {
                for (String[] command : COMMANDS) {
                    Cli.Result r = cli.start(new ByteArrayInputStream(new byte[0]), with(command, "--timeout", "1s"))
                            .await(BOUND);
                    assertThat(r.exit()).as(command[0]).isEqualTo(Exit.REDIS);
                    assertThat(r.err()).as(command[0]).startsWith("delayq: ").contains(server.uri().replace("redis://", ""))
                            .hasLineCount(1);
                }
            } finally {
                server.resume();
            }
        }
    }

    @Test
    void redisPausedInTheMiddleOfABulkEnqueue() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            Cli cli = new Cli(server.uri(), "p");
            PipedOutputStream producer = new PipedOutputStream();
            Cli.Running run = cli.start(new PipedInputStream(producer, 1 << 16), "enqueue", "q", "--jsonl", "-",
                    "--timeout", "1s");
            try {
                producer.write("{\"id\":\"a\"}\n".getBytes(StandardCharsets.UTF_8));
                producer.flush();
                await().atMost(Duration.ofSeconds(30)).until(() -> run.out().contains("created a\n"));
                server.pause();
                producer.write("{\"id\":\"b\"}\n".getBytes(StandardCharsets.UTF_8));
                producer.flush();
                Cli.Result r = run.await(BOUND); // ends with the input still open: it must not wait for more lines
                assertThat(r.exit()).isEqualTo(Exit.REDIS);
                assertThat(r.out()).isEqualTo("created a\n");
                assertThat(r.err()).isEqualTo("delayq: enqueue: Redis at " + server.uri() + " did not answer within 1000 ms\n");
            } finally {
                server.resume();
                producer.close();
            }
        }
    }

    @Test
    void everyCommandHasHelpWithExamples() {
        Cli cli = new Cli("redis://127.0.0.1:1", "x");
        for (String name : List.of("enqueue", "work", "job", "list", "cancel", "delete", "reschedule", "retry", "purge", "check")) {
            Cli.Result r = cli.run(name, "--help");
            assertThat(r.exit()).as(name).isZero();
            assertThat(r.out()).as(name).contains("Usage: delayq " + name).contains("Examples:");
            long examples = r.lines().stream().filter(l -> l.startsWith("  delayq " + name + " ")).count();
            assertThat(examples).as(name).isBetween(2L, 3L);
        }
    }

    private static String[] with(String[] command, String... more) {
        String[] all = new String[command.length + more.length];
        System.arraycopy(command, 0, all, 0, command.length);
        System.arraycopy(more, 0, all, command.length, more.length);
        return all;
    }
}
