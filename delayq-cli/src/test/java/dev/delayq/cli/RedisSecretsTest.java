package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.testkit.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Redis password never shows: not in a message (a malformed URL included), not in a job's environment;
 * and it can be given apart from the URL. Against a private Redis that requires a password.
 */
class RedisSecretsTest {
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

    private static Cli.Result run(String url, String... args) {
        return new Cli(url, "sec" + ProcessHandle.current().pid()).run(args);
    }

    private static void assertNoSecret(Cli.Result r, String... secrets) {
        for (String s : secrets) {
            assertThat(r.out()).doesNotContain(s);
            assertThat(r.err()).doesNotContain(s);
        }
    }

    @Test
    void aBadPortIsAUsageErrorWithTheUrlMasked() {
        Cli.Result plain = run("redis://127.0.0.1:notaport", "stats", "q");
        assertThat(plain.exit()).isEqualTo(Exit.USAGE);
        assertThat(plain.err()).isEqualTo("delayq: invalid port 'notaport' in --redis redis://127.0.0.1:notaport: use a "
                + "number from 1 to 65535\n");

        Cli.Result withPassword = run("redis://alice:" + SECRET + "@127.0.0.1:99999", "stats", "q");
        assertThat(withPassword.exit()).isEqualTo(Exit.USAGE);
        assertThat(withPassword.err()).isEqualTo("delayq: invalid port '99999' in --redis redis://alice:***@127.0.0.1:99999: "
                + "use a number from 1 to 65535\n");
    }

    @Test
    void malformedAndAmbiguousUrlsAreNeverEchoedInClear() {
        int free = RedisServer.freePort();
        Cli.Result badDb = run("redis://:" + SECRET + "@127.0.0.1:" + free + "/notadb", "stats", "q", "--verbose");
        assertThat(badDb.exit()).isEqualTo(Exit.USAGE);
        assertThat(badDb.err()).startsWith("delayq: redis URI 'redis://:***@127.0.0.1:" + free + "/notadb' is invalid");
        assertNoSecret(badDb, SECRET);

        // Read as a URI, the password would end at '#' and "ss" become the host.
        Cli.Result ambiguous = run("redis://:p@ss#wo/rd@127.0.0.1:" + free, "stats", "q");
        assertThat(ambiguous.exit()).isEqualTo(Exit.USAGE);
        assertThat(ambiguous.err()).startsWith("delayq: the credentials in --redis redis://:***@127.0.0.1:" + free
                + " hold '@', '/', '?' or '#'").hasLineCount(1);
        assertNoSecret(ambiguous, "p@ss", "ss#wo", "wo/rd");

        Cli.Result unreachable = run("redis://:" + SECRET + "@127.0.0.1:" + free, "stats", "q", "--verbose",
                "--timeout", "2s");
        assertThat(unreachable.exit()).isEqualTo(Exit.REDIS);
        assertThat(unreachable.err()).contains("\tat "); // the stack trace, redacted too
        assertNoSecret(unreachable, SECRET);
    }

    @Test
    void thePasswordCanComeFromAFile() throws Exception {
        Path file = Files.writeString(dir.resolve("pw"), SECRET + "\n");
        Cli.Result ok = run("redis://" + hostPort, "enqueue", "q", "--id", "a", "--redis-password-file", file.toString());
        assertThat(ok.exit()).as(ok.err()).isZero();
        assertThat(ok.out()).isEqualTo("created a\n");

        Path wrong = Files.writeString(dir.resolve("wrong"), "not-the-password-77");
        Cli.Result refused = run("redis://" + hostPort, "stats", "q", "--redis-password-file", wrong.toString());
        assertThat(refused.exit()).isEqualTo(Exit.REDIS);
        assertThat(refused.err()).startsWith("delayq: Redis at redis://" + hostPort + " refused the credentials");
        assertNoSecret(refused, "not-the-password-77");

        Path empty = Files.writeString(dir.resolve("empty"), "\n");
        Cli.Result blank = run("redis://" + hostPort, "stats", "q", "--redis-password-file", empty.toString());
        assertThat(blank.exit()).isEqualTo(Exit.USAGE);
        assertThat(blank.err()).isEqualTo("delayq: --redis-password-file '" + empty + "' is empty: put the password on "
                + "its first line\n");

        Cli.Result missing = run("redis://" + hostPort, "stats", "q", "--redis-password-file", dir.resolve("no").toString());
        assertThat(missing.exit()).isEqualTo(Exit.USAGE);
        assertThat(missing.err()).isEqualTo("delayq: cannot read --redis-password-file '" + dir.resolve("no")
                + "': no such file\n");
    }

    @Test
    void anAclUserInTheUrlWithItsPasswordFromAFile() throws Exception {
        secured.call("ACL", "SETUSER", "alice", "on", ">alice-pw-3", "~*", "&*", "+@all");
        Path file = Files.writeString(dir.resolve("alice"), "alice-pw-3");
        Cli.Result ok = run("redis://alice@" + hostPort, "enqueue", "q", "--id", "by-alice", "--redis-password-file",
                file.toString());
        assertThat(ok.exit()).as(ok.err()).isZero();
        assertThat(ok.out()).isEqualTo("created by-alice\n");
        Cli.Result worker = run("redis://alice@" + hostPort, "work", "q", "--exec", "true", "--max-jobs", "1",
                "--redis-password-file", file.toString());
        assertThat(worker.exit()).as(worker.err()).isZero();
        assertThat(worker.err()).contains("Redis redis://alice:***@" + hostPort + ",").doesNotContain("alice-pw-3");
    }

    @Test
    void jobsGetNoCredentialsAndAPasswordInArgumentsIsWarnedAbout() throws Exception {
        String url = "redis://:" + SECRET + "@" + hostPort;
        assertThat(run(url, "enqueue", "envq", "--id", "e1").exit()).isZero();
        Path env = dir.resolve("env.txt");
        Cli.Result r = run(url, "work", "envq", "--exec", "env > " + env, "--exit-when-idle", "1s");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(Files.readString(env)).contains("DELAYQ_JOB_ID=e1").doesNotContain(SECRET);
        List<String> err = r.err().lines().toList();
        assertThat(err.get(0)).isEqualTo("delayq: warning: the Redis password in --redis is visible to other users in "
                + "process listings (ps) while the worker runs: use --redis-password-file FILE or $DELAYQ_REDIS_PASSWORD "
                + "instead");
        assertThat(err.get(1)).contains("Redis redis://:***@" + hostPort);
        assertNoSecret(r, SECRET);

        Path file = Files.writeString(dir.resolve("pw"), SECRET);
        assertThat(run(url, "enqueue", "envq", "--id", "e2").exit()).isZero();
        Cli.Result apart = run("redis://" + hostPort, "work", "envq", "--exec", "env > " + env, "--exit-when-idle", "1s",
                "--redis-password-file", file.toString());
        assertThat(apart.exit()).as(apart.err()).isZero();
        assertThat(apart.err()).doesNotContain("warning").contains("Redis redis://:***@" + hostPort + ",");
        assertThat(Files.readString(env)).contains("DELAYQ_JOB_ID=e2").doesNotContain(SECRET);
    }

    @Test
    void aCaFileWithAPlainUrlIsRefused() throws Exception {
        Path ca = Files.writeString(dir.resolve("ca.pem"), "not used");
        Cli.Result r = run("redis://" + hostPort, "stats", "q", "--tls-ca", ca.toString());
        assertThat(r.exit()).isEqualTo(Exit.USAGE);
        assertThat(r.err()).isEqualTo("delayq: --tls-ca is for TLS connections, but --redis redis://" + hostPort
                + " is not one: use rediss://host:port (or rediss-sentinel://) to encrypt the traffic, or leave out "
                + "--tls-ca\n");
    }

    @Test
    void aBadUrlsMessageShowsItsUsageTemplateIntactAndTheCredentialsMasked() {
        int free = RedisServer.freePort();
        Cli.Result noScheme = run("alice:" + SECRET + "@127.0.0.1:" + free, "stats", "q");
        assertThat(noScheme.exit()).isEqualTo(Exit.USAGE);
        assertThat(noScheme.err()).isEqualTo("delayq: --redis ***@127.0.0.1:" + free + " is not a Redis URL: use "
                + "redis://[user:password@]host:port[/db], rediss://... (TLS) or redis-sentinel://host:port#master\n");

        Cli.Result noHost = run("redis://alice:" + SECRET + "@:" + free, "stats", "q");
        assertThat(noHost.exit()).isEqualTo(Exit.USAGE);
        assertThat(noHost.err()).isEqualTo("delayq: no host in --redis redis://alice:***@:" + free
                + ": use redis://[user:password@]host:port[/db]\n");
        assertNoSecret(noScheme, SECRET);
        assertNoSecret(noHost, SECRET);

        // Only the template itself is notation: credentials written after it are still masked.
        assertThat(RedisUrl.maskInText("use redis://[user:password@]host:port[/db]"))
                .isEqualTo("use redis://[user:password@]host:port[/db]");
        assertThat(RedisUrl.maskInText("redis://[user:password@]x:pw@host")).isEqualTo("redis://***@host");
    }

    @Test
    void maskingCoversEveryFormOfCredentials() {
        assertThat(RedisUrl.mask("redis://user:pw@host:1")).isEqualTo("redis://user:***@host:1");
        assertThat(RedisUrl.mask("redis://:pw@host:1/2")).isEqualTo("redis://:***@host:1/2");
        assertThat(RedisUrl.mask("rediss://pw@host")).isEqualTo("rediss://***@host");
        assertThat(RedisUrl.mask("redis://:p@ss#wo/rd@host")).isEqualTo("redis://:***@host");
        assertThat(RedisUrl.mask("redis://us/er:pw@host")).isEqualTo("redis://***@host");
        assertThat(RedisUrl.mask("no-scheme:pw@host")).isEqualTo("***@host");
        assertThat(RedisUrl.mask("redis://host:1")).isEqualTo("redis://host:1");
        assertThat(RedisUrl.maskInText("at redis://a:b@h:1 and redis-sentinel://:c@s:2#m, user@example.com"))
                .isEqualTo("at redis://a:***@h:1 and redis-sentinel://:***@s:2#m, user@example.com");
        assertThat(RedisTarget.redact("password hunter22 in 'redis://:hunter22@h'", RedisTarget.secretsOf("redis://:hunter22@h")))
                .isEqualTo("password *** in 'redis://:***@h'");
        assertThat(RedisTarget.redact("p%40ss decoded is p@ss", RedisTarget.secretsOf("redis://:p%40ss@h")))
                .isEqualTo("*** decoded is ***");
    }
}
