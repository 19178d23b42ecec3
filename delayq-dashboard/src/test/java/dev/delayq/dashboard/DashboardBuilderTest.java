package dev.delayq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.delayq.DelayQ;
import dev.delayq.testkit.RedisExtension;
import dev.delayq.testkit.RedisServer;
import java.io.UncheckedIOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What the builder refuses, binding, closing, and a Redis that goes away (503). */
class DashboardBuilderTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    @Test
    void anAddressOtherThanLoopbackNeedsAToken() {
        try (DelayQ dq = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).build()) {
            assertThatThrownBy(() -> Dashboard.builder(dq).bind("0.0.0.0").build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("bind 0.0.0.0 is not a loopback address: anyone who can reach it could change jobs, so give "
                            + "a token (--token or DELAYQ_DASHBOARD_TOKEN), or bind 127.0.0.1");
            assertThat(Dashboard.builder(dq).bind("0.0.0.0").token(Served.TOKEN).build()).isNotNull();
            assertThat(Dashboard.builder(dq).bind("localhost").build()).isNotNull();
            assertThat(Dashboard.builder(dq).bind("::1").build()).isNotNull();
            assertThatThrownBy(() -> Dashboard.builder(dq).bind("no-such-host.invalid").build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("bind no-such-host.invalid is not an address of this host");
        }
    }

    @Test
    void badSettingsAreRefusedNamingTheValue() {
        try (DelayQ dq = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).build()) {
            assertThatThrownBy(() -> Dashboard.builder(dq).port(-1)).hasMessage(
                    "port is -1: it must be 0 to 65535 (0 = any free port)");
            assertThatThrownBy(() -> Dashboard.builder(dq).port(65536)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> Dashboard.builder(dq).token("short")).hasMessage(
                    "token has 5 characters: it must have at least 16 (e.g. from 'openssl rand -hex 16')");
            assertThatThrownBy(() -> Dashboard.builder(dq).token("has a space in it, 1234")).hasMessageStartingWith(
                    "token contains spaces, control or non-ASCII characters");
            assertThatThrownBy(() -> Dashboard.builder(dq).bind(" ")).hasMessageStartingWith("bind is empty");
            assertThatThrownBy(() -> Dashboard.builder(null)).isInstanceOf(NullPointerException.class);
        }
    }

    @Test
    void aPortInUseIsReportedAndCloseFreesThePort() {
        try (DelayQ dq = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).build()) {
            Dashboard first = Dashboard.builder(dq).port(0).build().start();
            int port = first.port();
            assertThat(first.url()).isEqualTo("http://127.0.0.1:" + port + "/");
            assertThatThrownBy(() -> Dashboard.builder(dq).port(port).build().start())
                    .isInstanceOf(UncheckedIOException.class)
                    .hasMessageStartingWith("cannot listen on 127.0.0.1:" + port + ": ")
                    .hasMessageEndingWith("(is the port in use? choose another one)");
            assertThatThrownBy(first::start).isInstanceOf(IllegalStateException.class);
            first.close();
            first.close(); // idempotent
            Dashboard second = Dashboard.builder(dq).port(port).build().start();
            assertThat(new Http(second.url()).get("/api/queues").status()).isEqualTo(200);
            second.close();
        }
    }

    @Test
    void anIpv6LoopbackUrlHasBrackets() {
        assumeTrue(ipv6Loopback(), "this host has no IPv6 loopback (::1)");
        try (DelayQ dq = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).build();
             Dashboard d = Dashboard.builder(dq).bind("::1").port(0).build().start()) {
            assertThat(d.url()).isEqualTo("http://[::1]:" + d.port() + "/");
            assertThat(new Http(d.url()).get("/api/server").status()).isEqualTo(200);
        }
    }

    @Test
    void redisGoneIs503WithTheReason() {
        RedisServer redis = RedisServer.start();
        try (DelayQ dq = DelayQ.builder().redis(redis.uri()).prefix(REDIS.prefix()).timeout(Duration.ofSeconds(2)).build();
             Dashboard d = Dashboard.builder(dq).port(0).build().start()) {
            Http http = new Http(d.url());
            assertThat(http.get("/api/queues").status()).isEqualTo(200);
            redis.close();
            Http.Response r = http.get("/api/queues");
            assertThat(r.status()).as(r.toString()).isEqualTo(503);
            assertThat(r.error()).startsWith("Redis ");
        } finally {
            redis.close();
        }
    }

    private static boolean ipv6Loopback() {
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("::1"))) {
            return probe.getLocalPort() > 0;
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
