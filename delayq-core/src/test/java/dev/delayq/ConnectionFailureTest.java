package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.testkit.RedisServer;
import dev.delayq.testkit.Resp;
import io.lettuce.core.event.connection.ReconnectAttemptEvent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Redis unreachable, slow, dead, restarted, misconfigured or full: typed errors, bounded waits, nothing half-written. */
class ConnectionFailureTest {

    @Test
    void unreachableServerIsAConnectionError() {
        int port = RedisServer.freePort();
        assertThatThrownBy(() -> DelayQ.builder().redis("redis://127.0.0.1:" + port).timeout(Duration.ofSeconds(2)).build())
                .isInstanceOf(DelayQConnectionException.class)
                .hasMessageStartingWith("cannot reach Redis at redis://127.0.0.1:" + port);
    }

    @Test
    void wrongPasswordIsAConnectionErrorNamingTheCredentials() {
        try (RedisServer server = RedisServer.builder().config("requirepass", "s3cret").start()) {
            String uri = "redis://:wrong@127.0.0.1:" + server.port();
            assertThatThrownBy(() -> DelayQ.builder().redis(uri).timeout(Duration.ofSeconds(2)).build())
                    .isInstanceOf(DelayQConnectionException.class)
                    .hasMessageContaining("refused the credentials")
                    .hasMessageNotContaining("wrong");
            try (DelayQ ok = DelayQ.connect("redis://:s3cret@127.0.0.1:" + server.port())) {
                assertThat(ok.queue("q").enqueue(Job.of("x")).created()).isTrue();
            }
        }
    }

    @Test
    void aServerThatStopsAnsweringGivesATimeoutWithinTheConfiguredBound() {
        try (RedisServer server = RedisServer.start();
             DelayQ dq = DelayQ.builder().redis(server.uri()).timeout(Duration.ofSeconds(2)).build()) {
            JobQueue q = dq.queue("q");
            q.enqueue(Job.builder().id("a").build());
            server.pause();
            try {
                long start = System.nanoTime();
                assertThatThrownBy(() -> q.leases().claim(ClaimOptions.of(1, Duration.ofSeconds(30))))
                        .isInstanceOf(DelayQTimeoutException.class)
                        .hasMessageContaining("did not answer within 2000 ms");
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
            } finally {
                server.resume();
            }
            // The claim may have run after all (it was sent before the pause); either way the job is whole.
            Awaitility.await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> q.inspector().check().clean());
            JobInfo info = q.get("a").orElseThrow();
            assertThat(info.state()).isIn(JobState.SCHEDULED, JobState.PROCESSING);
        }
    }

    @Test
    void aKilledServerFailsCallsQuicklyAndARestartedOneIsUsedAgain() {
        try (RedisServer server = RedisServer.builder().config("appendonly", "yes").config("appendfsync", "always").start();
             DelayQ dq = DelayQ.builder().redis(server.uri()).timeout(Duration.ofSeconds(1)).build()) {
            JobQueue q = dq.queue("q");
            q.enqueue(Job.builder().id("before-crash").build());
            server.kill();
            long start = System.nanoTime();
            assertThatThrownBy(() -> q.inspector().stats()).isInstanceOf(DelayQException.class)
                    .satisfies(e -> assertThat(e).isInstanceOfAny(DelayQTimeoutException.class, DelayQConnectionException.class));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));

            server.restart(); // empty script cache: the NOSCRIPT path reloads transparently
            Awaitility.await().atMost(Duration.ofSeconds(20)).ignoreExceptions()
                    .until(() -> q.enqueue(Job.builder().id("after-restart").build()).created());
            List<ClaimedJob> jobs = q.leases().claim(ClaimOptions.of(10, Duration.ofSeconds(30))).jobs();
            assertThat(jobs).extracting(ClaimedJob::id).containsExactly("before-crash", "after-restart");
            jobs.forEach(j -> q.leases().complete(j.lease()));
            assertThat(q.inspector().check().clean()).isTrue();
        }
    }

    /**
     * Found by the fault suite (ScriptFlushTest, RedisCrashTest): a call made while the connection was down was
     * never sent, not even once Redis was back, and failed only when the command timeout ran out, so every short
     * outage stalled producers and workers for the whole timeout. It must fail at once (and the next call, once
     * Redis is back, succeed).
     */
    @Test
    void theReconnectDelayBoundsEveryWaitBetweenReconnectionAttempts() throws Exception {
        // Lettuce's own backoff doubles up to 30 s: its 8th attempt waits 128 ms, its 15th 16 s. With a bound of
        // 100 ms no wait may exceed it, however long Redis stays away, and Redis is used again once it is back.
        try (RedisServer server = RedisServer.builder().config("appendonly", "yes").config("appendfsync", "always").start();
             DelayQ dq = DelayQ.builder().redis(server.uri()).timeout(Duration.ofSeconds(2))
                     .reconnectDelay(Duration.ofMillis(100)).build()) {
            JobQueue q = dq.queue("q");
            q.enqueue(Job.builder().id("before").build());
            List<ReconnectAttemptEvent> attempts = new CopyOnWriteArrayList<>();
            try (AutoCloseable events = dq.backend().onClientEvent(e -> {
                if (e instanceof ReconnectAttemptEvent a) {
                    attempts.add(a);
                }
            })) {
                server.kill();
                Awaitility.await().atMost(Duration.ofSeconds(60))
                        .until(() -> attempts.stream().mapToInt(ReconnectAttemptEvent::getAttempt).max().orElse(0) >= 12);
                assertThat(attempts).allSatisfy(a -> assertThat(a.getDelay()).isLessThanOrEqualTo(Duration.ofMillis(100)));
                assertThat(attempts).anySatisfy(a -> assertThat(a.getDelay()).isEqualTo(Duration.ofMillis(100)));
                server.restart();
                Awaitility.await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                        .until(() -> q.enqueue(Job.builder().id("after").build()).created());
            }
            assertThat(q.get("before")).isPresent();
        }
    }

    @Test
    void aReconnectDelayOutsideItsBoundsIsRefusedNamingThem() {
        assertThatThrownBy(() -> DelayQ.builder().reconnectDelay(Duration.ZERO).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("reconnect delay is 0s: it must be positive");
        assertThatThrownBy(() -> DelayQ.builder().reconnectDelay(Duration.ofMinutes(6)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("reconnect delay is 6m: it must be at most 5m");
    }

    @Test
    void aCallWhileTheConnectionIsDownFailsAtOnceInsteadOfWaitingOutTheTimeout() {
        try (RedisServer server = RedisServer.builder().config("appendonly", "yes").config("appendfsync", "always").start();
             DelayQ dq = DelayQ.builder().redis(server.uri()).timeout(Duration.ofSeconds(30)).build()) {
            JobQueue q = dq.queue("q");
            q.enqueue(Job.builder().id("before").build());
            server.kill();
            for (int i = 0; i < 3; i++) {
                long start = System.nanoTime();
                assertThatThrownBy(() -> q.inspector().stats()).isInstanceOf(DelayQConnectionException.class);
                // Far from the 30 s timeout it used to wait out, whatever else the machine is doing.
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
            }
            server.restart();
            // The client reconnects on its own; on a busy machine its back-off can take a few seconds.
            Awaitility.await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
                    .until(() -> q.enqueue(Job.builder().id("after").build()).created());
            assertThat(q.inspector().stats().scheduled()).isEqualTo(2);
        }
    }

    @Test
    void anEvictingMemoryPolicyIsRefusedUnlessAllowed() {
        try (RedisServer server = RedisServer.builder().config("maxmemory", "100mb").config("maxmemory-policy", "allkeys-lru").start()) {
            assertThatThrownBy(() -> DelayQ.connect(server.uri()))
                    .isInstanceOf(DelayQConfigurationException.class)
                    .hasMessageContaining("maxmemory-policy allkeys-lru")
                    .hasMessageContaining("noeviction");
            try (DelayQ dq = DelayQ.builder().redis(server.uri()).allowEvictingMemoryPolicy(true).build()) {
                assertThat(dq.queue("q").enqueue(Job.of("x")).created()).isTrue();
            }
        }
    }

    @Test
    void aFullServerRefusesEnqueuesWithAClearErrorAndWritesNothingHalfWay() {
        try (RedisServer server = RedisServer.builder().config("maxmemory", "3mb").config("maxmemory-policy", "noeviction").start();
             DelayQ dq = DelayQ.connect(server.uri())) {
            JobQueue q = dq.queue("q");
            int created = 0;
            DelayQException refused = null;
            for (int i = 0; i < 1000 && refused == null; i++) {
                try {
                    q.enqueue(Job.builder().id("j" + i).payload(new byte[20_000]).build());
                    created++;
                } catch (DelayQException e) {
                    refused = e;
                }
            }
            assertThat(refused).isNotNull().hasMessageContaining("out of memory");
            assertThat(created).isPositive();
            assertThat(q.inspector().stats().scheduled()).isEqualTo(created);
            assertThat(q.inspector().check().clean()).isTrue();
        }
    }

    @Test
    void aCommandInFlightWhenItsConnectionIsKilledFailsAndIsNeverSentAgain() {
        try (RedisServer server = RedisServer.start();
             DelayQ dq = DelayQ.builder().redis(server.uri()).timeout(Duration.ofSeconds(5)).build()) {
            JobQueue q = dq.queue("q");
            q.inspector().stats(); // connected, scripts loaded
            // Writes (scripts included) wait on the server, so the enqueue is in flight when its connection dies.
            server.call("CLIENT", "PAUSE", "20000", "WRITE");
            java.util.concurrent.CompletableFuture<EnqueueResult> inFlight;
            try {
                inFlight = q.enqueueAsync(Job.builder().id("in-flight").build());
                Awaitility.await().atMost(Duration.ofSeconds(5))
                        .until(() -> Long.parseLong(server.info("clients").get("blocked_clients")) >= 1);
                server.call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
                // Not re-sent after the reconnect (Lettuce's default, under which a torn reply was decoded into the
                // first try's half-filled output): the caller hears the connection broke and retries itself.
                assertThatThrownBy(() -> inFlight.get(3, java.util.concurrent.TimeUnit.SECONDS))
                        .hasCauseInstanceOf(DelayQConnectionException.class)
                        .hasMessageContaining("may or may not have run");
            } finally {
                server.call("CLIENT", "UNPAUSE");
            }
            Awaitility.await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> q.inspector().stats() != null);
            assertThat(q.get("in-flight")).isEmpty();
            assertThat(q.inspector().stats().total("enqueued")).isZero();
            assertThat(q.enqueue(Job.builder().id("in-flight").build()).created()).isTrue();
        }
    }

    @Test
    void aCommandIssuedWhileTheConnectionIsDownFailsAtOnceInsteadOfWaitingForTheTimeout() {
        try (RedisServer server = RedisServer.start();
             DelayQ dq = DelayQ.builder().redis(server.uri()).timeout(Duration.ofSeconds(30)).build()) {
            JobQueue q = dq.queue("q");
            q.enqueue(Job.builder().id("a").build());
            server.call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
            server.pause(); // the reconnect cannot complete while the server is stopped
            try {
                long start = System.nanoTime();
                assertThatThrownBy(q.inspector()::stats).isInstanceOf(DelayQConnectionException.class);
                // Far from the 30 s timeout, whatever else the machine is doing.
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
            } finally {
                server.resume();
            }
            Awaitility.await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> q.inspector().stats().scheduled() == 1);
        }
    }

    /**
     * A server busy with a long script answers BUSY (as a loading one answers LOADING): Redis is unavailable for
     * now, not the operation failed, so callers get the retryable DelayQConnectionException; once the script is
     * killed the same client works again.
     */
    @Test
    void aBusyServerGivesARetryableConnectionErrorNotAFailedOperation() throws Exception {
        try (RedisServer server = RedisServer.builder().config("lua-time-limit", "100").start();
             DelayQ dq = DelayQ.builder().redis(server.uri()).timeout(Duration.ofSeconds(5)).build()) {
            JobQueue q = dq.queue("q");
            q.enqueue(Job.builder().id("a").build());
            Thread busy = new Thread(() -> {
                try (Resp r = new Resp(server.host(), server.port(), 60_000)) {
                    r.call("EVAL", "while true do end", "0");
                } catch (java.io.IOException killed) {
                    // SCRIPT KILL ends it with an error reply
                }
            }, "busy-script");
            busy.start();
            try {
                Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThatThrownBy(q.inspector()::stats)
                        .isInstanceOf(DelayQConnectionException.class).hasMessageContaining("BUSY"));
            } finally {
                Awaitility.await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
                        .until(() -> "OK".equals(String.valueOf(server.call("SCRIPT", "KILL"))));
                busy.join(10_000);
            }
            assertThat(q.inspector().stats().scheduled()).isEqualTo(1);
        }
    }
}
