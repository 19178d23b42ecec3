package dev.delayq.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class RedisServerTest {

    @Test
    void startsAnswersAndStops() throws IOException {
        RedisServer server = RedisServer.start();
        int port = server.port();
        try (Resp r = server.connect()) {
            assertThat(r.callString("PING")).isEqualTo("PONG");
            assertThat(r.call("SET", "k", "v")).isEqualTo("OK");
            assertThat(r.callString("GET", "k")).isEqualTo("v");
        }
        assertThat(port).isNotEqualTo(6379);
        assertThat(RedisBinary.atLeast(server.binary().version(), 6, 2)).isTrue();
        server.close();
        assertThat(server.isRunning()).isFalse();
        assertThatThrownBy(() -> new Resp("127.0.0.1", port, 500)).isInstanceOf(IOException.class);
    }

    @Test
    void killAndRestartKeepsTheAppendOnlyFile() {
        try (RedisServer server = RedisServer.builder().config("appendonly", "yes").config("appendfsync", "always").start()) {
            server.call("SET", "survivor", "1");
            long pid = server.pid();
            server.kill();
            assertThat(server.isRunning()).isFalse();
            server.restart();
            assertThat(server.pid()).isNotEqualTo(pid);
            assertThat(server.call("GET", "survivor")).isEqualTo("1");
        }
    }

    @Test
    void bundledBinaryRuns() {
        // The bundled 6.2 binary is what a machine without redis-server >= 6.2 gets; prove it starts here.
        try (RedisServer server = RedisServer.builder().binary(RedisBinary.bundled()).start()) {
            assertThat(server.call("PING")).isEqualTo("PONG");
            assertThat(server.binary().version()).startsWith("6.2.");
        }
    }

    @Test
    void errorRepliesAreTyped() {
        try (RedisServer server = RedisServer.start(); Resp r = server.connect()) {
            assertThatThrownBy(() -> r.call("NOSUCHCOMMAND")).isInstanceOf(Resp.ErrorReply.class)
                    .hasMessageContaining("unknown command");
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
