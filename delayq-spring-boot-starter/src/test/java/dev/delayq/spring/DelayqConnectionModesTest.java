package dev.delayq.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.delayq.DelayQ;
import dev.delayq.JobState;
import dev.delayq.testkit.RedisClusterExtension;
import dev.delayq.testkit.RedisSentinel;
import dev.delayq.testkit.RedisServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * Boot's Redis settings in every mode reach a working delayq: an ACL user and password, a database, a cluster
 * from its node list, Sentinel from its master and nodes, TLS verified with an SSL bundle. Each round trip runs a
 * job through a {@link DelayqListener}.
 */
class DelayqConnectionModesTest {
    @RegisterExtension
    static final RedisClusterExtension CLUSTER = new RedisClusterExtension();

    private static final Duration WAIT = Duration.ofSeconds(60);

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(
            DelayqAutoConfiguration.class, TestBootLine.JACKSON_AUTO_CONFIGURATION, TestBootLine.SSL_AUTO_CONFIGURATION))
            .withUserConfiguration(Echo.class);

    @Configuration(proxyBeanMethods = false)
    static class Echo {
        @DelayqListener(queue = "echo")
        void on(Order order) {
            if (order.id() < 0) {
                throw new IllegalArgumentException("negative");
            }
        }
    }

    /** A job enqueued through the template is run by the listener. */
    private static void roundTrip(ConfigurableApplicationContext ctx) {
        DelayqTemplate template = ctx.getBean(DelayqTemplate.class);
        template.enqueue("echo", "ping", new Order(1, "ping"), Duration.ZERO);
        Awaitility.await().atMost(WAIT).until(() -> template.queue("echo").get("ping")
                .map(j -> j.state() == JobState.DONE).orElse(false));
    }

    @Test
    void anAclUserWithAPasswordAndADatabase() {
        try (RedisServer server = RedisServer.start()) {
            server.call("ACL", "SETUSER", "orders", "on", ">s3cr:t@/x", "~*", "&*", "+@all");
            runner.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + server.port(),
                    "spring.data.redis.username=orders", "spring.data.redis.password=s3cr:t@/x", "spring.data.redis.database=5")
                    .run(ctx -> {
                        roundTrip(ctx);
                        assertThat(server.info("keyspace")).containsKey("db5");
                    });
            // The same through a URL (credentials percent-encoded, as Boot reads them) and Boot's own auto-configuration.
            runner.withConfiguration(AutoConfigurations.of(TestBootLine.REDIS_AUTO_CONFIGURATION))
                    .withPropertyValues("spring.data.redis.url=redis://orders:s3cr%3At%40%2Fx@127.0.0.1:" + server.port() + "/6")
                    .run(ctx -> {
                        roundTrip(ctx);
                        assertThat(server.info("keyspace")).containsKey("db6");
                    });
            runner.withPropertyValues("spring.data.redis.port=" + server.port(), "spring.data.redis.username=orders",
                    "spring.data.redis.password=wrong", "delayq.timeout=2s")
                    .run(ctx -> assertThat(ctx).getFailure().hasStackTraceContaining("refused the credentials"));
        }
    }

    @Test
    void aClusterFromItsNodeListEvenWhenTheFirstNodeIsDownOrFromDelayqRedisUrl() {
        String nodes = "127.0.0.1:" + RedisServer.freePort() + "," + CLUSTER.cluster().uri().substring("redis://".length());
        runner.withPropertyValues("spring.data.redis.cluster.nodes=" + nodes, "delayq.prefix=" + CLUSTER.prefix(),
                        "delayq.timeout=3s")
                .run(ctx -> {
                    assertThat(ctx.getBean(DelayQ.class).serverInfo().mode()).isEqualTo("cluster");
                    roundTrip(ctx);
                });
        runner.withPropertyValues("delayq.redis-url=" + CLUSTER.cluster().uri(), "delayq.cluster=true",
                        "delayq.prefix=" + CLUSTER.prefix() + "-url")
                .run(ctx -> {
                    assertThat(ctx.getBean(DelayQ.class).serverInfo().mode()).isEqualTo("cluster");
                    roundTrip(ctx);
                });
    }

    @Test
    void sentinelFromItsMasterAndNodes() {
        try (RedisServer master = RedisServer.start(); RedisSentinel sentinel = RedisSentinel.start("jobs", master, 1000)) {
            runner.withPropertyValues("spring.data.redis.sentinel.master=jobs",
                            "spring.data.redis.sentinel.nodes=127.0.0.1:" + sentinel.port())
                    .run(ctx -> {
                        assertThat(ctx.getBean(DelayQ.class).serverInfo().mode()).isEqualTo("sentinel");
                        roundTrip(ctx);
                        assertThat(master.call("HEXISTS", "dq:{echo}:jobs", "ping")).isEqualTo(1L);
                    });
        }
    }

    @Test
    void tlsVerifiedWithAPemSslBundle(@TempDir Path dir) throws Exception {
        assumeTrue(openssl(dir, "version"), "openssl is needed to make the test certificates");
        openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "2",
                "-subj", "/CN=delayq-test-ca");
        openssl(dir, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
                "-subj", "/CN=127.0.0.1");
        Files.writeString(dir.resolve("ext.cnf"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
        openssl(dir, "x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", "server.crt", "-days", "2", "-extfile", "ext.cnf");
        int tlsPort = RedisServer.freePort();
        RedisServer server;
        try {
            server = RedisServer.builder().config("tls-port", String.valueOf(tlsPort))
                    .config("tls-cert-file", dir.resolve("server.crt").toString())
                    .config("tls-key-file", dir.resolve("server.key").toString())
                    .config("tls-ca-cert-file", dir.resolve("ca.crt").toString())
                    .config("tls-auth-clients", "no").start();
        } catch (IllegalStateException e) {
            assumeTrue(false, "this redis-server was built without TLS: " + e.getMessage());
            return;
        }
        try (server) {
            runner.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + tlsPort,
                            "spring.data.redis.ssl.enabled=true", "spring.data.redis.ssl.bundle=redis",
                            "spring.ssl.bundle.pem.redis.truststore.certificate=" + dir.resolve("ca.crt").toUri())
                    .run(ctx -> {
                        assertThat(ctx.getBean(DelayQ.class).server()).startsWith("rediss://");
                        roundTrip(ctx);
                    });
            // delayq.redis-url with delayq.ssl-bundle
            runner.withPropertyValues("delayq.redis-url=rediss://127.0.0.1:" + tlsPort, "delayq.ssl-bundle=redis",
                            "spring.ssl.bundle.pem.redis.truststore.certificate=" + dir.resolve("ca.crt").toUri())
                    .run(ctx -> roundTrip(ctx));
            // Without the bundle, the JVM's trust store does not know the private CA.
            runner.withPropertyValues("spring.data.redis.url=rediss://127.0.0.1:" + tlsPort, "delayq.timeout=3s")
                    .run(ctx -> assertThat(ctx).hasFailed());
        }
    }

    private static boolean openssl(Path dir, String... args) throws IOException, InterruptedException {
        String[] cmd = new String[args.length + 1];
        cmd[0] = "openssl";
        System.arraycopy(args, 0, cmd, 1, args.length);
        try {
            Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("openssl.log").toFile()).start();
            return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false; // no openssl on this machine
        }
    }
}
