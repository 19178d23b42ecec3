package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.testkit.FaultProxy;
import dev.delayq.testkit.RedisServer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Durable enqueue: WAIT for replicas, refused or reported when the copies are not there. */
class DurabilityTest {

    @Test
    void anEnqueueWaitsForAReplicaAndSaysSoWhenItIsNotThere() {
        try (RedisServer master = RedisServer.start();
             RedisServer replica = RedisServer.start()) {
            replica.call("REPLICAOF", "127.0.0.1", String.valueOf(master.port()));
            Awaitility.await().atMost(Duration.ofSeconds(30))
                    .until(() -> "up".equals(replica.info("replication").get("master_link_status")));
            try (DelayQ dq = DelayQ.builder().redis(master.uri()).durability(Durability.replicas(1, Duration.ofSeconds(2))).build()) {
                JobQueue q = dq.queue("durable");
                assertThat(q.enqueue(Job.builder().id("safe").build()).created()).isTrue();
                assertThat(replica.call("HEXISTS", dq.prefix() + ":{durable}:jobs", "safe")).isEqualTo(1L);

                replica.kill();
                Awaitility.await().atMost(Duration.ofSeconds(30))
                        .until(() -> "0".equals(master.info("replication").get("connected_slaves")));
                assertThatThrownBy(() -> q.enqueue(Job.builder().id("unsure").build()))
                        .isInstanceOf(DelayQDurabilityException.class)
                        .hasMessageContaining("confirmed only on 0 of 1 replica(s) within 2000 ms")
                        .hasMessageContaining("enqueueing again with the same id is safe");
                assertThat(q.get("unsure")).isPresent(); // applied, just not confirmed
                // Enqueueing it again cannot confirm it either, and creates nothing new.
                assertThatThrownBy(() -> q.enqueue(Job.builder().id("unsure").build()))
                        .isInstanceOf(DelayQDurabilityException.class);
                assertThat(q.inspector().stats().total("enqueued")).isEqualTo(2);
            }
        }
    }

    @Test
    void concurrentDurableEnqueuesWaitSideBySideNotOneBehindAnother() throws Exception {
        try (RedisServer master = RedisServer.start()) {
            // No replica: every WAIT runs its whole timeout. On one shared connection six of them took six timeouts.
            try (DelayQ dq = DelayQ.builder().redis(master.uri()).durability(Durability.replicas(1, Duration.ofSeconds(10)))
                    .timeout(Duration.ofSeconds(30)).build()) {
                JobQueue q = dq.queue("side-by-side");
                java.util.List<java.util.concurrent.CompletableFuture<EnqueueResult>> calls = new java.util.ArrayList<>();
                for (int i = 0; i < 6; i++) {
                    calls.add(q.enqueueAsync(Job.builder().id("d" + i).build()));
                }
                // All six wait at once: six clients blocked in WAIT on the server at the same moment.
                // (Before the first WAIT of 10 s ends: a busy machine may take seconds to open their connections.)
                Awaitility.await().atMost(Duration.ofSeconds(8)).pollInterval(Duration.ofMillis(20))
                        .until(() -> Integer.parseInt(master.info("clients").get("blocked_clients")) >= 6);
                for (var c : calls) {
                    assertThatThrownBy(c::join).hasCauseInstanceOf(DelayQDurabilityException.class);
                }
                assertThat(q.inspector().stats().scheduled()).isEqualTo(6);
            }
        }
    }

    @Test
    void waitingForTheAofNeedsRedis72() {
        try (RedisServer server = RedisServer.start()) {
            String version = server.binary().version();
            boolean supported = RedisBinaryVersion.atLeast(version, 7, 2);
            if (!supported) {
                assertThatThrownBy(() -> DelayQ.builder().redis(server.uri()).durability(Durability.localAof(Duration.ofSeconds(1))).build())
                        .isInstanceOf(DelayQConfigurationException.class)
                        .hasMessageContaining("WAITAOF, Redis 7.2 or newer")
                        .hasMessageContaining("runs " + version);
            } else {
                server.call("CONFIG", "SET", "appendonly", "yes");
                try (DelayQ dq = DelayQ.builder().redis(server.uri()).durability(Durability.localAof(Duration.ofSeconds(5))).build()) {
                    assertThat(dq.queue("aof").enqueue(Job.of("x")).created()).isTrue();
                }
            }
        }
    }

    @Test
    void onRedis72AnEnqueueWaitsUntilTheAofHasItFsynced() {
        // Loud when it cannot run (the build's summary line names it): Debian 12 has Redis 7.0 only.
        dev.delayq.testkit.RedisBinary newer = dev.delayq.testkit.RedisBinary.atLeast(7, 2).orElse(null);
        org.junit.jupiter.api.Assumptions.assumeTrue(newer != null, "WAITAOF needs Redis 7.2 or Valkey: none on this "
                + "machine (set DELAYQ_REDIS_SERVER_NEW to one, or put valkey-server on the PATH)");
        try (RedisServer server = RedisServer.builder().binary(newer).start()) {
            server.call("CONFIG", "SET", "appendonly", "yes");
            server.call("CONFIG", "SET", "appendfsync", "always");
            try (DelayQ dq = DelayQ.builder().redis(server.uri()).durability(Durability.localAof(Duration.ofSeconds(5))).build()) {
                JobQueue q = dq.queue("aof");
                assertThat(q.enqueue(Job.of("x")).created()).isTrue();
                assertThat(q.enqueueAsync(Job.of("y")).join().created()).isTrue();
                assertThat(Long.parseLong(server.info("persistence").get("aof_enabled"))).isEqualTo(1);
            }
        }
    }

    @Test
    void durabilityArgumentsAreChecked() {
        assertThatThrownBy(() -> new Durability(0, 1, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("durability timeout must be positive");
        assertThatThrownBy(() -> Durability.replicas(0, Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("replicas is 0: it must be between 1 and 100");
    }

    /** Version comparison for the test's own decision. */
    static final class RedisBinaryVersion {
        static boolean atLeast(String version, int major, int minor) {
            String[] v = version.split("\\.");
            int ma = Integer.parseInt(v[0]);
            int mi = Integer.parseInt(v[1]);
            return ma > major || (ma == major && mi >= minor);
        }
    }

    @Test
    void aDurableEnqueueAsyncNeverBlocksItsCallerWhileItsConnectionIsOpened() {
        try (RedisServer master = RedisServer.start();
             FaultProxy proxy = FaultProxy.start(master.port(), 1, 0);
             DelayQ dq = DelayQ.builder().redis(proxy.uri()).durability(Durability.replicas(1, Duration.ofMillis(100)))
                     .timeout(Duration.ofSeconds(5)).build()) {
            JobQueue q = dq.queue("async-durable");
            q.inspector().stats(); // the command connection is open
            // Every new connection now waits in its handshake: the durable write's connection is opened on the way of
            // the call, and the call must come back at once, its future pending (it used to connect on the caller's
            // thread, which may be a Lettuce I/O thread when the call is chained from another's callback).
            proxy.hold();
            CompletableFuture<EnqueueResult> f = q.enqueueAsync(Job.builder().id("held").build());
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> proxy.held() == 1);
            assertThat(f).as("pending while its connection is held").isNotDone();
            proxy.release();
            // No replica here: applied, then reported unconfirmed, as any durable enqueue without one.
            assertThatThrownBy(f::join).hasCauseInstanceOf(DelayQDurabilityException.class);
            assertThat(q.get("held")).isPresent();
        }
    }
}
