package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.delayq.testkit.FaultProxy;
import dev.delayq.testkit.RedisClusterExtension;
import dev.delayq.testkit.RedisSentinel;
import dev.delayq.testkit.RedisServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** ACL users, TLS and Sentinel: delayq works in every connection mode. */
class ConnectionModesTest {
    @RegisterExtension
    static final RedisClusterExtension CLUSTER = new RedisClusterExtension();

    private static final Duration WAIT = Duration.ofSeconds(60);

    /** Enqueue, claim and complete through a client: the smallest proof that a mode works. */
    private static void roundTrip(DelayQ dq, String queue) {
        JobQueue q = dq.queue(queue);
        assertThat(q.enqueue(Job.builder().id("ping").payload("over " + queue).build()).created()).isTrue();
        ClaimBatch b = q.leases().claim(ClaimOptions.of(1, Duration.ofSeconds(30)));
        assertThat(b.jobs()).extracting(ClaimedJob::payloadUtf8).containsExactly("over " + queue);
        assertThat(q.leases().complete(b.jobs().get(0).lease())).isEqualTo(Ack.OK);
        assertThat(q.inspector().check().clean()).isTrue();
    }

    /**
     * A cluster client is ready for every command once built: it holds an open connection to every master, both the one
     * a key's commands take and the one a cluster-wide SCAN takes (Lettuce keeps them apart). Lettuce 7 rejects a
     * command sent while its node's connection is still being opened, even the command that opened it; a busy machine
     * turned {@code deleteAll}'s first SCAN into "Currently not connected" (LeastPrivilegeTest on a cluster).
     */
    @Test
    void aClusterClientHoldsAnOpenConnectionToEveryMasterBeforeItsFirstCommand() {
        String name = "ready-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        try (DelayQ dq = DelayQ.builder().redis(CLUSTER.cluster().uri()).cluster(true).prefix(name)
                .clientName(name).timeout(Duration.ofSeconds(10)).build()) {
            for (RedisServer master : CLUSTER.cluster().masters()) {
                long named = String.valueOf(master.call("CLIENT", "LIST")).lines()
                        .filter(l -> l.contains(" name=" + name + " ")).count();
                assertThat(named).as("connections named %s on master %s", name, master.uri()).isGreaterThanOrEqualTo(2);
            }
            assertThat(dq.deleteAll()).isZero();
        }
    }

    @Test
    void anAclUserWithAPasswordConnectsAndAWrongOneIsRefused() {
        try (RedisServer server = RedisServer.start()) {
            server.call("ACL", "SETUSER", "alice", "on", ">wonderland", "~*", "&*", "+@all");
            try (DelayQ dq = DelayQ.connect("redis://alice:wonderland@127.0.0.1:" + server.port())) {
                roundTrip(dq, "acl");
            }
            assertThatThrownBy(() -> DelayQ.builder().redis("redis://alice:looking-glass@127.0.0.1:" + server.port())
                    .timeout(Duration.ofSeconds(2)).build())
                    .isInstanceOf(DelayQConnectionException.class)
                    .hasMessageContaining("refused the credentials");
        }
    }

    /**
     * A handshake cut short by the connection closing hides the server's answer (Lettuce reports "Connection closed
     * prematurely", or in 6.x sometimes "RedisHandshakeHandler not registered"); connect tries once more and names
     * the real cause. Here a proxy closes the first connection as soon as it is accepted and forwards the rest.
     */
    @Test
    void aHandshakeCutShortIsTriedAgainSoAWrongPasswordIsStillNamed() {
        try (RedisServer server = RedisServer.start(); FaultProxy proxy = FaultProxy.start(server.port(), 1, 10)) {
            proxy.closeNextAccepted(1);
            server.call("ACL", "SETUSER", "alice", "on", ">wonderland", "~*", "&*", "+@all");
            assertThatThrownBy(() -> DelayQ.builder().redis("redis://alice:looking-glass@127.0.0.1:" + proxy.port())
                    .timeout(Duration.ofSeconds(2)).build())
                    .isInstanceOf(DelayQConnectionException.class)
                    .hasMessageContaining("refused the credentials");
            assertThat(proxy.closedOnAccept()).isEqualTo(1);
            proxy.closeNextAccepted(1);
            try (DelayQ dq = DelayQ.connect("redis://alice:wonderland@127.0.0.1:" + proxy.port())) {
                roundTrip(dq, "cut-short");
            }
            assertThat(proxy.closedOnAccept()).isEqualTo(2);
        }
    }

    @Test
    void credentialsGivenApartFromTheUriOverrideItsOwnAndServerInfoDescribesTheServer() {
        try (RedisServer server = RedisServer.start()) {
            server.call("ACL", "SETUSER", "dora", "on", ">p@ss#wo/rd", "~*", "&*", "+@all");
            String uri = "redis://127.0.0.1:" + server.port();
            try (DelayQ dq = DelayQ.builder().redis(uri).username("dora").password("p@ss#wo/rd").build()) {
                roundTrip(dq, "apart");
                ServerInfo info = dq.serverInfo();
                assertThat(info.mode()).isEqualTo("single");
                assertThat(info.version()).isEqualTo(dq.serverVersion());
                assertThat(info.usedMemoryBytes()).isPositive();
                assertThat(info.connectedClients()).isPositive();
                assertThat(info.server()).isEqualTo(uri).doesNotContain("p@ss");
            }
            assertThatThrownBy(() -> DelayQ.builder().redis(uri).username("dora").password("wrong")
                    .timeout(Duration.ofSeconds(2)).build())
                    .isInstanceOf(DelayQConnectionException.class)
                    .hasMessageContaining("refused the credentials");
            assertThatThrownBy(() -> DelayQ.builder().redis(uri).username("dora").build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("without a password");
        }
    }

    @Test
    void rediss_onAPlainPortSaysTheTlsHandshakeFailed() {
        try (RedisServer server = RedisServer.start()) {
            assertThatThrownBy(() -> DelayQ.builder().redis("rediss://127.0.0.1:" + server.port())
                    .timeout(Duration.ofSeconds(3)).build())
                    .isInstanceOf(DelayQConnectionException.class)
                    .hasMessageStartingWith("the TLS handshake with rediss://127.0.0.1:" + server.port() + " failed")
                    .hasMessageContaining("A plain port needs redis://");
        }
    }

    @Test
    void deleteAllTakesOnlyItsOwnPrefix() {
        try (RedisServer server = RedisServer.start(); DelayQ dq = DelayQ.connect(server.uri(), "dq");
             DelayQ staging = DelayQ.connect(server.uri(), "dq:staging")) {
            dq.queue("a").enqueue(Job.builder().id("1").build());
            staging.queue("a").enqueue(Job.builder().id("1").build());
            assertThat(dq.deleteAll()).isPositive();
            assertThat(staging.queue("a").get("1")).isPresent();
            assertThat(staging.queues()).containsExactly("a");
            assertThat(dq.queues()).isEmpty();
        }
    }

    @Test
    void anAclUserWorksOnACluster() {
        CLUSTER.cluster().running().forEach(n -> n.call("ACL", "SETUSER", "bob", "on", ">builder", "~*", "&*", "+@all"));
        String seed = CLUSTER.cluster().uri().replace("redis://", "redis://bob:builder@");
        try (DelayQ dq = DelayQ.builder().redis(seed).cluster(true).prefix(CLUSTER.prefix()).build()) {
            roundTrip(dq, "acl-cluster");
            JobQueue partitioned = dq.queue("acl-partitioned", 3);
            for (int i = 0; i < 30; i++) {
                partitioned.enqueue(Job.builder().id("p" + i).build());
            }
            assertThat(partitioned.inspector().stats().scheduled()).isEqualTo(30);
            for (int i = 0; i < 30; i++) {
                partitioned.cancel("p" + i);
            }
        }
    }

    @Test
    void tlsWithAPrivateCertificateAuthority(@TempDir Path dir) throws Exception {
        assumeTrue(openssl(dir, "version"), "openssl is needed to make the test certificates");
        openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "2",
                "-subj", "/CN=delayq-test-ca");
        openssl(dir, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1");
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
            server.call("ACL", "SETUSER", "carol", "on", ">secure", "~*", "&*", "+@all");
            try (DelayQ dq = DelayQ.builder().redis("rediss://carol:secure@127.0.0.1:" + tlsPort)
                    .tlsTrustedCertificates(dir.resolve("ca.crt")).build()) {
                roundTrip(dq, "tls");
                List<String> ran = new CopyOnWriteArrayList<>();
                JobQueue q = dq.queue("tls-worker");
                try (Worker w = Worker.builder(q, job -> ran.add(job.id())).build().start()) {
                    q.enqueue(Job.builder().id("over-tls").delay(Duration.ofMillis(100)).build());
                    Awaitility.await().atMost(WAIT).until(() -> ran.contains("over-tls"));
                }
            }
            // The JVM's own trust store does not know the private CA: the handshake is refused.
            assertThatThrownBy(() -> DelayQ.builder().redis("rediss://127.0.0.1:" + tlsPort).timeout(Duration.ofSeconds(3)).build())
                    .isInstanceOf(DelayQConnectionException.class);
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

    @Test
    void throughSentinelAndOnAcrossAFailover() {
        try (RedisServer master = RedisServer.start(); RedisServer replica = RedisServer.start()) {
            replica.call("REPLICAOF", "127.0.0.1", String.valueOf(master.port()));
            Awaitility.await().atMost(WAIT).until(() -> "up".equals(replica.info("replication").get("master_link_status")));
            try (RedisSentinel sentinel = RedisSentinel.start("jobs", master, 1000);
                 DelayQ dq = DelayQ.builder().redis(sentinel.uri()).timeout(Duration.ofSeconds(5)).build()) {
                roundTrip(dq, "sentinel");
                JobQueue q = dq.queue("sentinel-worker");
                List<String> ran = new CopyOnWriteArrayList<>();
                try (Worker w = Worker.builder(q, job -> ran.add(job.id())).maxIdleSleep(Duration.ofSeconds(1)).build().start()) {
                    q.enqueue(Job.builder().id("before").build());
                    Awaitility.await().atMost(WAIT).until(() -> ran.contains("before"));
                    // Wait until the replica has everything, then let Sentinel promote it.
                    Awaitility.await().atMost(WAIT).until(() -> master.info("replication").get("slave0") != null
                            && master.info("replication").get("slave0").contains("lag=0"));
                    sentinel.call("SENTINEL", "FAILOVER", "jobs");
                    // Sentinel ends the clients of each server it reconfigures (CLIENT KILL TYPE normal), so a look
                    // at a server's role can meet a reset connection: it is asked again.
                    Awaitility.await().atMost(WAIT).ignoreExceptions().until(() -> sentinel.masterPort() == replica.port());
                    Awaitility.await().atMost(WAIT).ignoreExceptions()
                            .until(() -> "master".equals(replica.info("replication").get("role")));
                    // Sentinel demotes the old master once it sees it again; from then on it refuses writes.
                    Awaitility.await().atMost(WAIT).ignoreExceptions()
                            .until(() -> "slave".equals(master.info("replication").get("role")));
                    Awaitility.await().atMost(WAIT).ignoreExceptions()
                            .until(() -> q.enqueue(Job.builder().id("after").build()) != null);
                    Awaitility.await().atMost(WAIT).until(() -> ran.contains("after"));
                    assertThat(w.isRunning()).isTrue();
                }
                assertThat(replica.call("HEXISTS", dq.prefix() + ":{sentinel-worker}:jobs", "after")).isEqualTo(1L);
            }
        }
    }
}
