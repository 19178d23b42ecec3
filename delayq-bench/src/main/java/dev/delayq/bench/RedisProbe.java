package dev.delayq.bench;

import dev.delayq.DelayQConnectionException;
import dev.delayq.DelayQException;
import dev.delayq.DelayQTimeoutException;
import dev.delayq.internal.present.InfoText;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.FlushMode;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The benchmark's own connection to Redis, beside the delayq clients it measures: Redis's clock, the
 * {@code INFO} counters, the limit workload's raw scripts, and clean-up. The only bench class that imports
 * Lettuce; its failures surface as delayq's exceptions so that the command exits as any other would.
 */
final class RedisProbe implements AutoCloseable {
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> sync;
    private final RedisAsyncCommands<String, String> async;
    private final String server;

    private RedisProbe(RedisClient client, StatefulRedisConnection<String, String> connection, String server) {
        this.client = client;
        this.connection = connection;
        this.sync = connection.sync();
        this.async = connection.async();
        this.server = server;
    }

    /**
     * Connects to {@code uri} (a URI the delayq client has already accepted), with the credentials given apart
     * from it when {@code password} is not {@code null}.
     *
     * @throws DelayQConnectionException when the server cannot be reached
     */
    static RedisProbe connect(String uri, String username, char[] password, Duration timeout) {
        RedisURI redisUri = RedisURI.create(uri);
        if (password != null) {
            if (username != null) {
                redisUri.setAuthentication(username, password);
            } else {
                redisUri.setAuthentication(password);
            }
        }
        redisUri.setTimeout(timeout);
        redisUri.setClientName("delayq-bench-probe");
        String server = redisUri.getHost() + ":" + redisUri.getPort();
        RedisClient client = RedisClient.create(redisUri);
        client.setOptions(ClientOptions.builder()
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
                .build());
        try {
            return new RedisProbe(client, client.connect(StringCodec.UTF8), server);
        } catch (RuntimeException e) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            throw translate(e, "connect", server);
        }
    }

    /** The server as {@code host:port} (never with credentials). */
    String server() {
        return server;
    }

    /**
     * Redis's clock: of {@code samples} {@code TIME} calls, the one with the shortest round trip gives the
     * offset (its error is at most half that round trip).
     */
    RedisClock clock(int samples) {
        RedisClock best = null;
        for (int i = 0; i < samples; i++) {
            long sent = System.nanoTime();
            List<String> time = call(sync::time, "time");
            long received = System.nanoTime();
            long redisNanos = Long.parseLong(time.get(0)) * 1_000_000_000L + Long.parseLong(time.get(1)) * 1_000L;
            RedisClock c = RedisClock.fromSample(redisNanos, sent, received);
            if (best == null || c.roundTripNanos() < best.roundTripNanos()) {
                best = c;
            }
        }
        return best;
    }

    /** {@code INFO section} as a map of field to value. */
    Map<String, String> info(String section) {
        return InfoText.parse(call(() -> sync.info(section), "info"));
    }

    /** {@code total_commands_processed} (INFO stats): every command, those run inside scripts included. */
    long commandsProcessed() {
        return Long.parseLong(info("stats").get("total_commands_processed"));
    }

    /** {@code used_memory} (INFO memory), in bytes. */
    /** Redis's own CPU time so far (used_cpu_user + used_cpu_sys), in microseconds. */
    long cpuMicros() {
        Map<String, String> cpu = info("cpu");
        return Math.round((Double.parseDouble(cpu.get("used_cpu_user")) + Double.parseDouble(cpu.get("used_cpu_sys"))) * 1e6);
    }

    long usedMemory() {
        return Long.parseLong(info("memory").get("used_memory"));
    }

    /** Objects still being freed by Redis's background thread (after UNLINK or an ASYNC flush). */
    long lazyFreePending() {
        return Long.parseLong(info("memory").getOrDefault("lazyfree_pending_objects", "0"));
    }

    /** {@code connected_clients} (INFO clients). */
    long connectedClients() {
        return Long.parseLong(info("clients").get("connected_clients"));
    }

    /** The server's version, e.g. {@code 7.0.15}. */
    String version() {
        return info("server").getOrDefault("redis_version", "unknown");
    }

    /** Loads the script in the class-path resource {@code name} (next to this class) and returns its SHA1. */
    String loadScript(String name) {
        String source;
        try (InputStream in = RedisProbe.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("script resource " + name + " is missing from the jar");
            }
            source = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return call(() -> sync.scriptLoad(source), "script load");
    }

    /** {@code EVALSHA} without waiting; the stage fails with delayq's exceptions. */
    <T> CompletableFuture<T> evalsha(String sha, ScriptOutputType type, String[] keys, String... args) {
        CompletableFuture<T> f = async.<T>evalsha(sha, type, keys, args).toCompletableFuture();
        return f.exceptionallyCompose(e -> CompletableFuture.failedFuture(translate(e, "evalsha", server)));
    }

    /** {@code EVALSHA}, waiting for the reply. */
    <T> T evalshaSync(String sha, ScriptOutputType type, String[] keys, String... args) {
        return call(() -> sync.evalsha(sha, type, keys, args), "evalsha");
    }

    /** {@code FLUSHALL SYNC}: only ever called on the benchmark's private server. */
    void flushAll() {
        call(() -> sync.flushall(FlushMode.SYNC), "flushall");
    }

    /** Deletes every key matching {@code pattern} with SCAN and UNLINK; returns how many. */
    long deleteMatching(String pattern) {
        long deleted = 0;
        ScanCursor cursor = ScanCursor.INITIAL;
        ScanArgs args = ScanArgs.Builder.matches(pattern).limit(1000);
        do {
            ScanCursor from = cursor;
            KeyScanCursor<String> page = call(() -> sync.scan(from, args), "scan");
            if (!page.getKeys().isEmpty()) {
                String[] keys = page.getKeys().toArray(new String[0]);
                deleted += call(() -> sync.unlink(keys), "unlink");
            }
            cursor = page;
        } while (!cursor.isFinished());
        return deleted;
    }

    private <T> T call(Supplier<T> command, String what) {
        try {
            return command.get();
        } catch (RuntimeException e) {
            throw translate(e, what, server);
        }
    }

    private static RuntimeException translate(Throwable e, String what, String server) {
        Throwable c = e;
        while (c instanceof java.util.concurrent.CompletionException && c.getCause() != null) {
            c = c.getCause();
        }
        if (c instanceof DelayQException de) {
            return de;
        }
        if (c instanceof RedisCommandTimeoutException) {
            return new DelayQTimeoutException(what + ": Redis at " + server + " did not answer in time", c);
        }
        if (c instanceof RedisConnectionException) {
            return new DelayQConnectionException("cannot reach Redis at " + server + " (" + what + "): " + c.getMessage(), c);
        }
        if (c instanceof RedisException) {
            return new DelayQException(what + " failed on Redis at " + server + ": " + c.getMessage(), c);
        }
        return c instanceof RuntimeException re ? re : new DelayQException(what + " failed: " + c, c);
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
