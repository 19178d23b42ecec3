package dev.delayq.internal;

import dev.delayq.DelayQConnectionException;
import dev.delayq.DelayQException;
import dev.delayq.DelayQTimeoutException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

/**
 * All Redis access: one multiplexed command connection (Lettuce pipelines every concurrent call on it),
 * one pub/sub connection opened on first use, scripts run by EVALSHA with NOSCRIPT handled, and every
 * Lettuce exception translated into delayq's exception family. This is the only class that imports
 * Lettuce.
 *
 * <p>With {@code cluster} it uses Lettuce's cluster client: the topology is refreshed periodically (every
 * 30 s) and adaptively (on MOVED/ASK redirects, persistent reconnects and failed connections), so a
 * failover is followed without a restart; scripts are loaded on every master, and a new master's empty
 * script cache is handled by the NOSCRIPT path.
 *
 * <p>Lettuce options set here, and why: auto-reconnect on (a worker survives a Redis restart); every command
 * has the command timeout ({@code timeoutOptions}), so nothing hangs; {@code disconnectedBehavior(REJECT_COMMANDS)}:
 * commands that were in flight when a connection dropped fail at once with {@link DelayQConnectionException}
 * (the outcome unknown to the caller) and are NOT re-sent after reconnecting, and commands issued while the
 * connection is down fail at once too instead of waiting for it. Lettuce's default re-sends in-flight commands
 * (at-least-once), and a reply torn mid-way was then decoded into the half-filled output of the first try
 * (found by the fault suite); its {@code replayFilter} does not help: Lettuce 7 applies it only to commands
 * written while disconnected (which it then drops silently, so they waited for the full timeout), never to
 * the commands in flight. Every retry is delayq's own, and every script is safe to run twice: a retried enqueue
 * of an id finds its job (reported as a duplicate), a retried complete or fail finds its own token and reports
 * what was applied, and a claim whose reply was lost leases jobs nobody receives, which come back when their
 * lease expires (the attempt counted).
 */
public final class RedisBackend implements AutoCloseable {
    private final AbstractRedisClient client;
    private final StatefulConnection<byte[], byte[]> connection;
    private final RedisClusterAsyncCommands<byte[], byte[]> async;
    private final String server;
    private final Duration timeout;
    /** The URI connected to: for connections opened later (pub/sub, durable), with the same credentials. */
    private RedisURI uri;
    private final Map<String, CopyOnWriteArrayList<Subscriber>> subscribers = new ConcurrentHashMap<>();
    private volatile StatefulRedisPubSubConnection<byte[], byte[]> pubsub;
    private volatile StatefulConnection<byte[], byte[]> durable;

    /** Receives pub/sub messages and reconnection notices of one channel. */
    public interface Subscriber {
        /** A message arrived on the channel. Runs on a Lettuce I/O thread: must not block. */
        void onMessage(byte[] message);

        /** The pub/sub connection came back; messages sent meanwhile may have been missed. */
        void onReconnect();
    }

    private RedisBackend(AbstractRedisClient client, StatefulConnection<byte[], byte[]> connection,
                         RedisClusterAsyncCommands<byte[], byte[]> async, String server, Duration timeout) {
        this.client = client;
        this.connection = connection;
        this.async = async;
        this.server = server;
        this.timeout = timeout;
    }

    /**
     * Connects to the server named by {@code uri} ({@code redis://}, {@code rediss://} for TLS, user and
     * password in the URI).
     *
     * @throws IllegalArgumentException when the URI is malformed
     * @throws DelayQConnectionException when the server cannot be reached or refuses the credentials
     */
    public static RedisBackend connect(String uri, Duration timeout, String clientName, boolean cluster) {
        return connect(uri, null, null, timeout, clientName, cluster, null);
    }

    /**
     * As {@link #connect(String, Duration, String, boolean)}, trusting the CA certificates of the PEM file
     * {@code tlsTrust} for {@code rediss://} (and TLS sentinel) connections; {@code null} trusts the JVM's default
     * trust store.
     */
    public static RedisBackend connect(String uri, String username, char[] password, Duration timeout, String clientName,
                                       boolean cluster, java.nio.file.Path tlsTrust) {
        RedisURI redisUri;
        try {
            redisUri = RedisURI.create(uri);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("redis URI '" + uri + "' is invalid: " + e.getMessage()
                    + " (expected redis://[user:password@]host:port[/db], rediss://... or redis-sentinel://...)", e);
        }
        redisUri.setTimeout(timeout);
        if (password != null) {
            if (username != null) {
                redisUri.setAuthentication(username, password);
            } else {
                redisUri.setAuthentication(password);
            }
        }
        if (clientName != null) {
            redisUri.setClientName(clientName);
        }
        String server = (cluster ? "cluster " : "") + describe(redisUri);
        SocketOptions socket = SocketOptions.builder().connectTimeout(timeout).keepAlive(true).build();
        io.lettuce.core.SslOptions ssl = tlsTrust == null ? io.lettuce.core.SslOptions.create()
                : io.lettuce.core.SslOptions.builder().jdkSslProvider().trustManager(tlsTrust.toFile()).build();
        AbstractRedisClient client = null;
        try {
            if (cluster) {
                RedisClusterClient c = RedisClusterClient.create(redisUri);
                client = c;
                c.setOptions(ClusterClientOptions.builder()
                        .autoReconnect(true)
                        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                        .timeoutOptions(TimeoutOptions.enabled(timeout))
                        .socketOptions(socket)
                        .sslOptions(ssl)
                        .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                                .enablePeriodicRefresh(Duration.ofSeconds(30))
                                .enableAllAdaptiveRefreshTriggers()
                                .build())
                        .build());
                var conn = c.connect(ByteArrayCodec.INSTANCE);
                return new RedisBackend(c, conn, conn.async(), server, timeout);
            }
            RedisClient c = RedisClient.create(redisUri);
            client = c;
            c.setOptions(ClientOptions.builder()
                    .autoReconnect(true)
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .timeoutOptions(TimeoutOptions.enabled(timeout))
                    .socketOptions(socket)
                    .sslOptions(ssl)
                    .build());
            if (sentinel(redisUri)) {
                // Master/Replica follows Sentinel's +switch-master: after a failover, commands go to the new
                // master (a plain connection would keep writing to the old one until it is demoted).
                var conn = io.lettuce.core.masterreplica.MasterReplica.connect(c, ByteArrayCodec.INSTANCE, redisUri);
                RedisBackend b = new RedisBackend(c, conn, conn.async(), server, timeout);
                b.uri = redisUri;
                return b;
            }
            var conn = connectPlain(c);
            return new RedisBackend(c, conn, conn.async(), server, timeout);
        } catch (RuntimeException e) {
            if (client != null) {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
            throw translate(e, "connect", server, timeout);
        }
    }

    /**
     * Connects, trying a second time when the handshake was cut short ("Connection closed prematurely"): on a
     * busy machine the channel has been seen to close before the server's answer to HELLO/AUTH was read, which
     * hid that answer (a wrong password, say) behind a generic error. A second handshake gives the real one.
     */
    private static io.lettuce.core.api.StatefulRedisConnection<byte[], byte[]> connectPlain(RedisClient c) {
        try {
            return c.connect(ByteArrayCodec.INSTANCE);
        } catch (RedisConnectionException e) {
            for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
                if (t.getMessage() != null && t.getMessage().contains("closed prematurely")) {
                    return c.connect(ByteArrayCodec.INSTANCE);
                }
            }
            throw e;
        }
    }

    private static boolean sentinel(RedisURI uri) {
        return uri.getSentinels() != null && !uri.getSentinels().isEmpty();
    }

    private static String describe(RedisURI uri) {
        String scheme = uri.isSsl() ? "rediss" : "redis";
        if (sentinel(uri)) {
            return "redis-sentinel://" + uri.getSentinels().get(0).getHost() + ":" + uri.getSentinels().get(0).getPort()
                    + " (master " + uri.getSentinelMasterId() + ")";
        }
        return scheme + "://" + uri.getHost() + ":" + uri.getPort();
    }

    /** The server, as {@code redis://host:port} (never with the password). */
    public String server() {
        return server;
    }

    /** {@code single}, {@code cluster} or {@code sentinel}. */
    public String mode() {
        return server.startsWith("cluster ") ? "cluster" : server.startsWith("redis-sentinel:") ? "sentinel" : "single";
    }

    /** The command timeout. */
    public Duration timeout() {
        return timeout;
    }

    /**
     * Runs a script by EVALSHA; on NOSCRIPT (cache flushed by a restart, a failover or SCRIPT FLUSH) runs it
     * by EVAL with its source, which also puts it back in the cache. A flush can therefore never surface as
     * an error, however often it happens. The result is the script's reply: {@code Long}, {@code byte[]},
     * {@code null} or nested {@code List<Object>}.
     */
    public CompletableFuture<List<Object>> eval(Script script, byte[][] keys, byte[]... args) {
        return run(async, script, keys, args).exceptionallyCompose(e -> CompletableFuture.failedFuture(
                translate(e, script.fileName(), server, timeout)));
    }

    /** EVALSHA on {@code c}, and on NOSCRIPT EVAL with the source (see {@link #eval}); failures untranslated. */
    private static CompletableFuture<List<Object>> run(RedisClusterAsyncCommands<byte[], byte[]> c, Script script,
                                                       byte[][] keys, byte[][] args) {
        return c.<List<Object>>evalsha(script.sha(), ScriptOutputType.MULTI, keys, args).toCompletableFuture().handle((r, e) -> {
            if (e == null) {
                return CompletableFuture.completedFuture(r);
            }
            Throwable cause = unwrap(e);
            if (cause instanceof RedisNoScriptException) {
                return c.<List<Object>>eval(script.sourceUnsafe(), ScriptOutputType.MULTI, keys, args).toCompletableFuture();
            }
            return CompletableFuture.<List<Object>>failedFuture(cause);
        }).thenCompose(f -> f);
    }

    /**
     * Loads every script into the server's cache (pipelined), so the first calls do not all meet NOSCRIPT
     * at once. Scripts flushed later (restart, failover, SCRIPT FLUSH) are reloaded on demand by {@link #eval}.
     */
    public void loadScripts() {
        List<CompletableFuture<String>> loads = new java.util.ArrayList<>();
        for (Script s : Script.values()) {
            loads.add(async.scriptLoad(s.sourceUnsafe()).toCompletableFuture());
        }
        await(CompletableFuture.allOf(loads.toArray(new CompletableFuture[0])), "script load");
    }

    /**
     * Runs a script and then waits until its writes are durable: {@code WAIT replicas timeout}, or with
     * {@code localAof} {@code WAITAOF localAof replicas timeout} (Redis 7.2+). Both go over a connection of their
     * own (WAIT blocks its connection until it returns, which must never stall the shared one) and, in a
     * cluster, to the node that owns {@code keys[0]}. Completes with the script's reply, or fails with
     * {@link dev.delayq.DelayQDurabilityException} when fewer copies than asked were confirmed in time.
     */
    public CompletableFuture<List<Object>> evalDurable(Script script, int localAof, int replicas, Duration wait,
                                                      byte[][] keys, byte[]... args) {
        RedisClusterAsyncCommands<byte[], byte[]> c = durableCommands(keys[0]);
        return run(c, script, keys, args).thenCompose(reply -> {
            CompletableFuture<String> confirmed;
            if (localAof > 0) {
                confirmed = c.dispatch(WAITAOF,
                        new io.lettuce.core.output.ArrayOutput<>(ByteArrayCodec.INSTANCE),
                        new io.lettuce.core.protocol.CommandArgs<>(ByteArrayCodec.INSTANCE).add(localAof).add(replicas)
                                .add(wait.toMillis())).toCompletableFuture().thenApply(counts -> {
                                    long aof = (Long) counts.get(0);
                                    long reps = (Long) counts.get(1);
                                    return aof >= localAof && reps >= replicas ? null
                                            : "fsynced by " + aof + " of " + localAof + " AOF(s) and " + reps + " of " + replicas + " replica(s)";
                                });
            } else {
                confirmed = c.waitForReplication(replicas, wait.toMillis()).toCompletableFuture()
                        .thenApply(n -> n >= replicas ? null : "on " + n + " of " + replicas + " replica(s)");
            }
            return confirmed.thenApply(shortfall -> {
                if (shortfall != null) {
                    throw new java.util.concurrent.CompletionException(new dev.delayq.DelayQDurabilityException(
                            script.fileName() + " was applied but confirmed only " + shortfall + " within " + wait.toMillis()
                                    + " ms on " + server + ": it may not survive a crash or failover; enqueueing again with "
                                    + "the same id is safe"));
                }
                return reply;
            });
        }).exceptionallyCompose(e -> {
            if (client instanceof RedisClusterClient cc && !(unwrap(e) instanceof dev.delayq.DelayQDurabilityException)) {
                // The durable path talks to the key's master directly, which bypasses the redirects that make
                // Lettuce refresh its view of the cluster: after a failover, refresh it now, for the retry.
                cc.refreshPartitionsAsync();
            }
            return CompletableFuture.failedFuture(translate(e, script.fileName(), server, timeout));
        });
    }

    /** WAITAOF (Redis 7.2+), which this Lettuce version has no method for. */
    private static final io.lettuce.core.protocol.ProtocolKeyword WAITAOF = new io.lettuce.core.protocol.ProtocolKeyword() {
        private final byte[] bytes = "WAITAOF".getBytes(StandardCharsets.US_ASCII);

        @Override
        public byte[] getBytes() {
            return bytes;
        }

        @Override
        public String toString() {
            return "WAITAOF";
        }
    };

    private RedisClusterAsyncCommands<byte[], byte[]> durableCommands(byte[] key) {
        StatefulConnection<byte[], byte[]> d = durable;
        if (d == null) {
            synchronized (this) {
                if (durable == null) {
                    try {
                        durable = client instanceof RedisClusterClient cc ? cc.connect(ByteArrayCodec.INSTANCE)
                                : uri != null ? io.lettuce.core.masterreplica.MasterReplica.connect((RedisClient) client,
                                        ByteArrayCodec.INSTANCE, uri)
                                : ((RedisClient) client).connect(ByteArrayCodec.INSTANCE);
                    } catch (RuntimeException e) {
                        throw translate(e, "connect", server, timeout);
                    }
                }
                d = durable;
            }
        }
        if (d instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster) {
            // WAIT counts the writes of its own connection on its own node: send both to the key's master.
            String node = cluster.getPartitions().getPartitionBySlot(SlotHash.getSlot(key)).getNodeId();
            return cluster.getConnection(node).async();
        }
        return ((io.lettuce.core.api.StatefulRedisConnection<byte[], byte[]>) d).async();
    }

    /** SADD. */
    public CompletableFuture<Long> sadd(byte[] key, byte[] member) {
        return wrap(async.sadd(key, member).toCompletableFuture(), "sadd");
    }

    /** SMEMBERS, decoded as UTF-8. */
    public CompletableFuture<List<String>> smembersUtf8(byte[] key) {
        return wrap(async.smembers(key).toCompletableFuture().thenApply(set -> {
            List<String> out = new ArrayList<>();
            for (byte[] b : set) {
                out.add(new String(b, StandardCharsets.UTF_8));
            }
            return out;
        }), "smembers");
    }

    /** HGET, decoded as UTF-8 ({@code null} when absent). */
    public String hget(byte[] key, String field) {
        byte[] v = await(wrap(async.hget(key, field.getBytes(StandardCharsets.UTF_8)).toCompletableFuture(), "hget"), "hget");
        return v == null ? null : new String(v, StandardCharsets.UTF_8);
    }

    /** HSETNX; {@code true} when this call set the field. */
    public boolean hsetnx(byte[] key, String field, String value) {
        return await(wrap(async.hsetnx(key, field.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8))
                .toCompletableFuture(), "hsetnx"), "hsetnx");
    }

    /** SREM. */
    public CompletableFuture<Long> srem(byte[] key, byte[] member) {
        return wrap(async.srem(key, member).toCompletableFuture(), "srem");
    }

    /** PUBLISH. */
    public CompletableFuture<Long> publish(byte[] channel, byte[] message) {
        return wrap(async.publish(channel, message).toCompletableFuture(), "publish");
    }

    /**
     * {@code CONFIG GET name}; empty when the command is not allowed (managed services often disable
     * CONFIG) or the parameter does not exist.
     */
    public Optional<String> configGet(String name) {
        try {
            Map<String, String> values = await(async.configGet(name).toCompletableFuture(), "config get");
            return Optional.ofNullable(values.get(name));
        } catch (DelayQException e) {
            if (e instanceof DelayQConnectionException || e instanceof DelayQTimeoutException) {
                throw e;
            }
            return Optional.empty();
        }
    }

    /** Redis's clock ({@code TIME}) in epoch microseconds. */
    public long timeMicros() {
        List<byte[]> t = await(async.time().toCompletableFuture(), "time");
        return Long.parseLong(new String(t.get(0), StandardCharsets.US_ASCII)) * 1_000_000L
                + Long.parseLong(new String(t.get(1), StandardCharsets.US_ASCII));
    }

    /** {@code INFO section} as a map of field to value. */
    public Map<String, String> info(String section) {
        String text = await(async.info(section).toCompletableFuture(), "info");
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : text.split("\r?\n")) {
            int i = line.indexOf(':');
            if (i > 0 && !line.startsWith("#")) {
                out.put(line.substring(0, i), line.substring(i + 1).trim());
            }
        }
        return out;
    }

    /** Deletes every key matching {@code pattern} (SCAN + UNLINK); returns how many. */
    public long deleteMatching(String pattern) {
        long deleted = 0;
        ScanCursor cursor = ScanCursor.INITIAL;
        ScanArgs args = ScanArgs.Builder.matches(pattern).limit(1000);
        do {
            KeyScanCursor<byte[]> page = await(async.scan(cursor, args).toCompletableFuture(), "scan");
            if (!page.getKeys().isEmpty()) {
                deleted += await(async.unlink(page.getKeys().toArray(new byte[0][])).toCompletableFuture(), "unlink");
            }
            cursor = page;
        } while (!cursor.isFinished());
        return deleted;
    }

    /** Every key matching {@code pattern} (SCAN), decoded as UTF-8. For tests and tools. */
    public List<String> keys(String pattern) {
        List<String> out = new ArrayList<>();
        ScanCursor cursor = ScanCursor.INITIAL;
        ScanArgs args = ScanArgs.Builder.matches(pattern).limit(1000);
        do {
            KeyScanCursor<byte[]> page = await(async.scan(cursor, args).toCompletableFuture(), "scan");
            for (byte[] k : page.getKeys()) {
                out.add(new String(k, StandardCharsets.ISO_8859_1));
            }
            cursor = page;
        } while (!cursor.isFinished());
        return out;
    }

    /**
     * Subscribes to a channel on the shared pub/sub connection (opened on first use). Returns a handle
     * whose {@code close()} unsubscribes.
     */
    public AutoCloseable subscribe(byte[] channel, Subscriber subscriber) {
        StatefulRedisPubSubConnection<byte[], byte[]> ps = pubsub();
        String name = new String(channel, StandardCharsets.ISO_8859_1);
        CopyOnWriteArrayList<Subscriber> list = subscribers.computeIfAbsent(name, k -> new CopyOnWriteArrayList<>());
        boolean first;
        synchronized (list) {
            first = list.isEmpty();
            list.add(subscriber);
        }
        if (first) {
            await(ps.async().subscribe(channel).toCompletableFuture(), "subscribe");
        }
        return () -> {
            boolean last;
            synchronized (list) {
                list.remove(subscriber);
                last = list.isEmpty();
            }
            if (last && ps.isOpen()) {
                ps.async().unsubscribe(channel);
            }
        };
    }

    private StatefulRedisPubSubConnection<byte[], byte[]> pubsub() {
        StatefulRedisPubSubConnection<byte[], byte[]> ps = pubsub;
        if (ps != null) {
            return ps;
        }
        synchronized (this) {
            if (pubsub == null) {
                try {
                    ps = client instanceof RedisClusterClient cc ? cc.connectPubSub(ByteArrayCodec.INSTANCE)
                            : ((RedisClient) client).connectPubSub(ByteArrayCodec.INSTANCE);
                } catch (RuntimeException e) {
                    throw translate(e, "subscribe", server, timeout);
                }
                ps.addListener(new RedisPubSubAdapter<byte[], byte[]>() {
                    @Override
                    public void message(byte[] channel, byte[] message) {
                        List<Subscriber> list = subscribers.get(new String(channel, StandardCharsets.ISO_8859_1));
                        if (list != null) {
                            for (Subscriber s : list) {
                                s.onMessage(message);
                            }
                        }
                    }
                });
                StatefulRedisPubSubConnection<byte[], byte[]> mine = ps;
                ps.addListener(new RedisConnectionStateListener() {
                    private volatile boolean connectedOnce;
                    private volatile boolean down;

                    @Override
                    public void onRedisConnected(RedisChannelHandler<?, ?> c, SocketAddress address) {
                        down = false;
                        if (connectedOnce) {
                            subscribers.values().forEach(list -> list.forEach(Subscriber::onReconnect));
                        }
                        connectedOnce = true;
                    }

                    @Override
                    public void onRedisDisconnected(RedisChannelHandler<?, ?> c) {
                        down = true;
                        if (client instanceof RedisClusterClient) {
                            // A cluster pub/sub connection is bound to one node; if that node is gone for good
                            // (a failed master), Lettuce would retry it forever. Give it a few seconds, then
                            // open a new one, which picks a live node, and subscribe again.
                            CompletableFuture.delayedExecutor(PUBSUB_REPLACE_SECONDS, TimeUnit.SECONDS).execute(() -> {
                                if (down && pubsub == mine && !closed) {
                                    replacePubSub(mine);
                                }
                            });
                        }
                    }
                });
                pubsub = ps;
            }
            return pubsub;
        }
    }

    private static final long PUBSUB_REPLACE_SECONDS = 5;

    /** Set by close(): a pub/sub connection closed on purpose is not replaced. */
    private volatile boolean closed;

    /** Replaces a pub/sub connection that stays down, subscribes every channel again, and tells the subscribers. */
    private void replacePubSub(StatefulRedisPubSubConnection<byte[], byte[]> old) {
        StatefulRedisPubSubConnection<byte[], byte[]> fresh;
        synchronized (this) {
            if (pubsub != old || closed) {
                return;
            }
            pubsub = null;
            old.closeAsync();
            try {
                fresh = pubsub();
            } catch (RuntimeException e) {
                // The cluster is not reachable either: try again on the next disconnect signal or a later call.
                LoggerHolder.LOG.warn("could not replace the pub/sub connection to {}: {}", server, e.getMessage());
                return;
            }
        }
        for (Map.Entry<String, CopyOnWriteArrayList<Subscriber>> e : subscribers.entrySet()) {
            if (!e.getValue().isEmpty()) {
                fresh.async().subscribe(e.getKey().getBytes(StandardCharsets.ISO_8859_1));
            }
        }
        subscribers.values().forEach(list -> list.forEach(Subscriber::onReconnect));
    }

    /** Logging is rare here; the holder keeps SLF4J out of class initialisation. */
    private static final class LoggerHolder {
        static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RedisBackend.class);
    }

    /** Waits for a future of this backend, translating failures into delayq exceptions. */
    public <T> T await(CompletableFuture<T> future, String what) {
        try {
            // Lettuce enforces the command timeout; the extra margin only guards against a lost callback.
            return future.get(timeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DelayQException(what + " was interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw translate(e, what, server, timeout);
        }
    }

    private <T> CompletableFuture<T> wrap(CompletableFuture<T> f, String what) {
        return f.exceptionallyCompose(e -> CompletableFuture.failedFuture(translate(e, what, server, timeout)));
    }

    /** Maps a Lettuce (or JDK concurrency) failure to delayq's exception family. */
    static RuntimeException translate(Throwable e, String what, String server, Duration timeout) {
        Throwable c = unwrap(e);
        if (c instanceof DelayQException de) {
            return de;
        }
        if (c instanceof IllegalArgumentException iae) {
            return iae; // input errors found while decoding a reply keep their type and message
        }
        if (c instanceof RedisCommandTimeoutException || c instanceof TimeoutException) {
            return new DelayQTimeoutException(what + ": Redis at " + server + " did not answer within "
                    + timeout.toMillis() + " ms", c);
        }
        if (c instanceof RedisCommandInterruptedException) {
            return new DelayQException(what + " was interrupted", c);
        }
        String msg = c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage();
        if (c instanceof IOException || (c.getClass() == RedisException.class && IN_FLIGHT_CUT.matcher(msg).matches())) {
            // A connection reset or closed under a command in flight (cancelled, not re-sent: see the class comment).
            return new DelayQConnectionException("connection to Redis at " + server + " broke during " + what + ": " + msg
                    + " (the command may or may not have run)", c);
        }
        if (c instanceof RedisCommandExecutionException && TRANSIENT.matcher(msg).lookingAt()) {
            // Redis is restarting, failing over or resharding: unavailable for now, not a failed operation.
            return new DelayQConnectionException("Redis at " + server + " is unavailable for " + what + " right now: " + msg, c);
        }
        if (c instanceof RedisCommandExecutionException) {
            if (msg.startsWith("NOAUTH") || msg.startsWith("WRONGPASS") || msg.contains("invalid password")) {
                return new DelayQConnectionException("Redis at " + server + " refused the credentials: " + msg, c);
            }
            if (msg.startsWith("OOM")) {
                return new DelayQException(what + " refused: Redis at " + server
                        + " is out of memory (maxmemory reached); nothing was written: " + msg, c);
            }
            return new DelayQException(what + " failed on Redis at " + server + ": " + msg, c);
        }
        if (c instanceof RedisConnectionException || c instanceof RedisException) {
            Throwable root = c;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            String detail = root == c ? msg : root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
            if (detail.contains("NOAUTH") || detail.contains("WRONGPASS")) {
                return new DelayQConnectionException("Redis at " + server + " refused the credentials: " + detail, c);
            }
            return new DelayQConnectionException("cannot reach Redis at " + server + " (" + what + "): " + detail, c);
        }
        return new DelayQException(what + " failed: " + msg, c);
    }

    /** Lettuce's messages for commands cancelled because their connection dropped while they were in flight. */
    private static final Pattern IN_FLIGHT_CUT = Pattern.compile("Connection (disconnected|closed)");

    /** Error replies of a server that is loading, failing over or resharding: retry later. */
    private static final Pattern TRANSIENT =
            Pattern.compile("(LOADING|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|READONLY|BUSY) ");

    static Throwable unwrap(Throwable e) {
        Throwable c = e;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }

    @Override
    public void close() {
        closed = true;
        StatefulRedisPubSubConnection<byte[], byte[]> ps = pubsub;
        if (ps != null) {
            ps.close();
        }
        StatefulConnection<byte[], byte[]> d = durable;
        if (d != null) {
            d.close();
        }
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }

    @Override
    public String toString() {
        return "RedisBackend[" + server + "]";
    }
}
