package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.delayq.testkit.RedisExtension;
import java.io.File;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code delayq dashboard}: refusals in-process, and a real process that serves until SIGTERM. */
class DashboardCommandTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private static final String TOKEN = "cli-test-token-0123456789";

    @TempDir
    Path dir;

    @Test
    void anAddressOtherThanLoopbackWithoutATokenIsRefusedInOneLine() {
        Cli.Result r = new Cli(REDIS.uri(), REDIS.prefix()).run("dashboard", "--bind", "0.0.0.0");
        assertThat(r.exit()).isEqualTo(Exit.USAGE);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).isEqualTo("delayq: bind 0.0.0.0 is not a loopback address: anyone who can reach it could "
                + "change jobs, so give a token (--token or DELAYQ_DASHBOARD_TOKEN), or bind 127.0.0.1\n");
    }

    @Test
    void badSettingsAreRefusedBeforeConnecting() {
        // No Redis listens there: the settings are refused first, with exit 2, not 3.
        Cli nowhere = new Cli("redis://127.0.0.1:1", "x");
        Cli.Result shortToken = nowhere.run("dashboard", "--token", "short");
        assertThat(shortToken.exit()).isEqualTo(Exit.USAGE);
        assertThat(shortToken.err()).isEqualTo(
                "delayq: token has 5 characters: it must have at least 16 (e.g. from 'openssl rand -hex 16')\n");
        Cli.Result port = nowhere.run("dashboard", "--port", "70000");
        assertThat(port.exit()).isEqualTo(Exit.USAGE);
        assertThat(port.err()).isEqualTo("delayq: port is 70000: it must be 0 to 65535 (0 = any free port)\n");
    }

    /** A blank token is a mistake, not "no token": refused as a short one, before connecting. */
    @Test
    void aBlankTokenIsRefusedAsAShortOne() {
        Cli nowhere = new Cli("redis://127.0.0.1:1", "x");
        Cli.Result empty = nowhere.run("dashboard", "--token", "");
        assertThat(empty.exit()).isEqualTo(Exit.USAGE);
        assertThat(empty.err()).isEqualTo("delayq: token is empty: it must have at least 16 printable characters (e.g. "
                + "from 'openssl rand -hex 16'); for no token, leave it unset\n");
        Cli.Result blank = nowhere.run("dashboard", "--token", "   ");
        assertThat(blank.exit()).isEqualTo(Exit.USAGE);
        assertThat(blank.err()).startsWith("delayq: token is blank: ");
        Cli.Result basePath = nowhere.run("dashboard", "--base-path", "ops");
        assertThat(basePath.exit()).isEqualTo(Exit.USAGE);
        assertThat(basePath.err()).isEqualTo("delayq: base path is 'ops': use a path such as /delayq (letters, digits, "
                + "'.', '_', '~', '-' between slashes), or / for the root\n");
    }

    @Test
    void aPortInUseIsExit2() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            Cli.Result r = new Cli(REDIS.uri(), REDIS.prefix()).run("dashboard", "--port", String.valueOf(taken.getLocalPort()));
            assertThat(r.exit()).isEqualTo(Exit.USAGE);
            assertThat(r.err()).startsWith("delayq: cannot listen on 127.0.0.1:" + taken.getLocalPort() + ": ")
                    .endsWith("(is the port in use? choose another one)\n");
            assertThat(r.err().lines()).hasSize(1);
        }
    }

    @Test
    void servesWithTheTokenFromTheEnvironmentAndStopsOnSigtermWithExit0() throws Exception {
        Path out = dir.resolve("out");
        Path err = dir.resolve("err");
        ProcessBuilder pb = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "dashboard", "--port", "0",
                "--redis", REDIS.uri(), "--prefix", REDIS.prefix()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().put("DELAYQ_DASHBOARD_TOKEN", TOKEN);
        Process p = pb.start();
        try {
            await().atMost(Duration.ofMinutes(1)).until(() -> !Files.readString(out).isEmpty() || !p.isAlive());
            String line = Files.readString(out, StandardCharsets.UTF_8);
            assertThat(line).as(Files.readString(err)).matches("dashboard: http://127\\.0\\.0\\.1:\\d+/\n");
            String url = line.substring("dashboard: ".length()).strip();

            HttpClient http = HttpClient.newHttpClient();
            HttpRequest anonymous = HttpRequest.newBuilder(URI.create(url + "api/queues")).build();
            assertThat(http.send(anonymous, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);
            HttpRequest withToken = HttpRequest.newBuilder(URI.create(url + "api/queues"))
                    .header("Authorization", "Bearer " + TOKEN).build();
            HttpResponse<String> ok = http.send(withToken, HttpResponse.BodyHandlers.ofString());
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(ok.body()).isEqualTo("[]");

            p.destroy(); // SIGTERM
            assertThat(p.waitFor(1, TimeUnit.MINUTES)).isTrue();
            assertThat(p.exitValue()).isZero();
            assertThat(Files.readString(err)).isEmpty();
            assertThat(Files.readString(out)).isEqualTo(line);
        } finally {
            p.destroyForcibly();
        }
    }
}
