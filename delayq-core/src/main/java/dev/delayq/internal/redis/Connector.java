package dev.delayq.internal.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.masterreplica.MasterReplica;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Opens the command connection to a single server, a Redis Cluster, or the master named by Sentinel, with the
 * Lettuce options delayq relies on:
 * <ul>
 * <li>auto-reconnect (a worker survives a Redis restart) and the command timeout on every command, so nothing hangs;
 * <li>{@code disconnectedBehavior(REJECT_COMMANDS)}: commands in flight when a connection drops fail at once (their
 *     outcome unknown to the caller) and are never re-sent after reconnecting, and commands issued while it is down
 *     fail at once instead of waiting for it. Lettuce's default re-sends in-flight commands, and a reply torn mid-way
 *     was then decoded into the half-filled output of the first try; its {@code replayFilter} does not help, because
 *     Lettuce 7 applies it only to commands written while disconnected. Every retry is delayq's own, and every
 *     script is safe to run twice (see CONNECTIONS in RELIABILITY.md);
 * <li>for a cluster: periodic (30 s) and all adaptive topology refreshes, so failovers are followed without a restart;
 * <li>for Sentinel: Master/Replica, which follows {@code +switch-master} to the new master;
 * <li>with a reconnect delay: client resources of its own whose reconnection backoff doubles from 1 ms up to that
 *     delay (Lettuce's default doubles up to 30 s, so a Redis back after 10 s of outage was reconnected 6 s later).
 * </ul>
 */
final class Connector {
    private Connector() {
    }

    /**
     * An open command connection and what later connections (pub/sub, durable writes) need to open theirs;
     * {@code ownResources}: the client's resources were made for it (a reconnect delay) and end with it.
     */
    record Opened(AbstractRedisClient client, StatefulConnection<byte[], byte[]> connection,
                  RedisClusterAsyncCommands<byte[], byte[]> async, RedisURI uri, String server, boolean ownResources) {
        boolean sentinel() {
            return Connector.sentinel(uri);
        }
    }

    /** Opens a connection; {@code reconnectDelay}: the longest wait between reconnection attempts (null: Lettuce's). */
    static Opened open(RedisURI redisUri, Duration timeout, boolean cluster, Path tlsTrust, Duration reconnectDelay) {
        String server = (cluster ? "cluster " : "") + describe(redisUri);
        SocketOptions socket = SocketOptions.builder().connectTimeout(timeout).keepAlive(true).build();
        SslOptions ssl = tlsTrust == null ? SslOptions.create()
                : SslOptions.builder().jdkSslProvider().trustManager(tlsTrust.toFile()).build();
        AbstractRedisClient client = null;
        ClientResources resources = reconnectDelay == null ? null : ClientResources.builder()
                .reconnectDelay(Delay.exponential(Duration.ofMillis(1), reconnectDelay, 2, TimeUnit.MILLISECONDS)).build();
        boolean own = resources != null;
        try {
            if (cluster) {
                RedisClusterClient c = own ? RedisClusterClient.create(resources, redisUri) : RedisClusterClient.create(redisUri);
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
                nodesConnected(conn).join();
                return new Opened(c, conn, conn.async(), redisUri, server, own);
            }
            RedisClient c = own ? RedisClient.create(resources, redisUri) : RedisClient.create(redisUri);
            client = c;
            c.setOptions(ClientOptions.builder()
                    .autoReconnect(true)
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .timeoutOptions(TimeoutOptions.enabled(timeout))
                    .socketOptions(socket)
                    .sslOptions(ssl)
                    .build());
            if (sentinel(redisUri)) {
                var conn = MasterReplica.connect(c, ByteArrayCodec.INSTANCE, redisUri);
                return new Opened(c, conn, conn.async(), redisUri, server, own);
            }
            var conn = connectPlain(c);
            return new Opened(c, conn, conn.async(), redisUri, server, own);
        } catch (RuntimeException e) {
            if (client != null) {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
            if (resources != null) {
                resources.shutdown(0, 2, TimeUnit.SECONDS);
            }
            if (redisUri.isSsl() && tlsFailure(e)) {
                throw new dev.delayq.DelayQConnectionException("the TLS handshake with " + server + " failed ("
                        + RedisErrors.translate(e, "connect", server, timeout).getMessage() + "): is it a TLS port? A plain "
                        + "port needs redis://, not rediss://; a private CA needs its certificate trusted (tlsTrustedCertificates)", e);
            }
            throw RedisErrors.translate(e, "connect", server, timeout);
        }
    }

    /** Whether a failed connect looks like a TLS handshake that did not happen (not TLS on the other end, or untrusted). */
    private static boolean tlsFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String name = t.getClass().getName();
            String msg = String.valueOf(t.getMessage());
            if (t instanceof javax.net.ssl.SSLException || name.contains("NotSslRecord") || name.contains("SslHandshake")
                    || msg.contains("initialization timed out") || msg.contains("SSL") || msg.contains("handshake")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Connects, trying a second time when the handshake was cut short: on a busy machine the channel has been seen
     * to close before HELLO/AUTH was written (a {@link ClosedChannelException}), before the server's answer was read
     * ("Connection closed prematurely", or "Connection reset" when the other end closed with HELLO unread), or, in
     * Lettuce 6.x, before its connect listener looked for the handshake handler ("RedisHandshakeHandler not
     * registered"). Each hid that answer (a wrong password, say) behind a generic error; a second handshake gives
     * the real one.
     */
    private static StatefulRedisConnection<byte[], byte[]> connectPlain(RedisClient c) {
        try {
            return c.connect(ByteArrayCodec.INSTANCE);
        } catch (RedisConnectionException e) {
            if (handshakeCutShort(e)) {
                return c.connect(ByteArrayCodec.INSTANCE);
            }
            throw e;
        }
    }

    /** Whether a failed connect lost its handshake to the channel closing (see {@link #connectPlain}). */
    private static boolean handshakeCutShort(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String msg = t.getMessage();
            if (t instanceof ClosedChannelException || msg != null && (msg.contains("closed prematurely")
                    || msg.contains("RedisHandshakeHandler not registered") || msg.contains("Connection reset"))) {
                return true;
            }
        }
        return false;
    }

    /** A second command connection like {@code opened}'s, on the same client, as an {@link Opened} of its own. */
    static Opened openAnother(Opened opened, Duration timeout) {
        try {
            StatefulConnection<byte[], byte[]> c = another(opened);
            RedisClusterAsyncCommands<byte[], byte[]> async = c instanceof io.lettuce.core.cluster.api.StatefulRedisClusterConnection<byte[], byte[]> cc
                    ? cc.async() : ((StatefulRedisConnection<byte[], byte[]>) c).async();
            return new Opened(opened.client(), c, async, opened.uri(), opened.server(), false);
        } catch (RuntimeException e) {
            throw RedisErrors.translate(e, "connect", opened.server(), timeout);
        }
    }

    /** A second command connection of the same kind as {@code opened}'s (for commands that block their connection). */
    static StatefulConnection<byte[], byte[]> another(Opened opened) {
        if (opened.client() instanceof RedisClusterClient cc) {
            StatefulRedisClusterConnection<byte[], byte[]> c = cc.connect(ByteArrayCodec.INSTANCE);
            nodesConnected(c).join();
            return c;
        }
        RedisClient c = (RedisClient) opened.client();
        return opened.sentinel() ? MasterReplica.connect(c, ByteArrayCodec.INSTANCE, opened.uri()) : c.connect(ByteArrayCodec.INSTANCE);
    }

    /**
     * {@link #another} without blocking the caller: for a connection opened on the way of an asynchronous call, which
     * may run on one of Lettuce's I/O threads (blocking one would stall every connection it serves).
     */
    static CompletableFuture<StatefulConnection<byte[], byte[]>> anotherAsync(Opened opened) {
        if (opened.client() instanceof RedisClusterClient cc) {
            return cc.connectAsync(ByteArrayCodec.INSTANCE)
                    .thenCompose(c -> nodesConnected(c).thenApply(done -> (StatefulConnection<byte[], byte[]>) c));
        }
        RedisClient c = (RedisClient) opened.client();
        if (opened.sentinel()) {
            return MasterReplica.connectAsync(c, ByteArrayCodec.INSTANCE, opened.uri()).thenApply(x -> x);
        }
        // As connectPlain: a handshake cut short is tried once more, so its real answer is seen.
        return c.connectAsync(ByteArrayCodec.INSTANCE, opened.uri()).toCompletableFuture()
                .exceptionallyCompose(e -> handshakeCutShort(e) ? c.connectAsync(ByteArrayCodec.INSTANCE, opened.uri()).toCompletableFuture()
                        : CompletableFuture.failedFuture(e))
                .thenApply(x -> x);
    }

    /**
     * Completes once a new cluster connection holds an open connection to every master, both the one Lettuce routes a
     * key's commands through (asked for by host and port) and the one a cluster-wide command such as {@code SCAN} goes
     * through (asked for by node id: another connection). Lettuce opens node connections on first use, and with
     * {@code REJECT_COMMANDS} (Lettuce 7) a command sent while its node's connection is still being opened is rejected
     * ("Currently not connected"); a command that opened it is sent from the connect future's own completion, which
     * comes before the connection counts as connected, so even that one was rejected: the first purge pass of every
     * worker on a cluster failed, and a {@code deleteAll} on a cluster failed on a busy machine (its SCAN opened the
     * node-id connections). So each node connection is awaited until it reports itself open, up to {@code timeout}.
     * A master that cannot be reached now is left to first use, as before.
     */
    private static CompletableFuture<Void> nodesConnected(StatefulRedisClusterConnection<byte[], byte[]> c) {
        long deadline = System.nanoTime() + c.getTimeout().toNanos();
        List<CompletableFuture<?>> nodes = new ArrayList<>();
        for (RedisClusterNode n : c.getPartitions()) {
            if (n.getRole().isUpstream()) {
                nodes.add(c.getConnectionAsync(n.getUri().getHost(), n.getUri().getPort())
                        .thenCompose(conn -> open(conn, deadline)).handle((done, e) -> null));
                nodes.add(c.getConnectionAsync(n.getNodeId())
                        .thenCompose(conn -> open(conn, deadline)).handle((done, e) -> null));
            }
        }
        return CompletableFuture.allOf(nodes.toArray(CompletableFuture[]::new));
    }

    /**
     * Completes once {@code conn} reports itself open (Lettuce marks it so right after the handshake's completion), or
     * at {@code deadline}; looks every millisecond, off the I/O thread that completed the connect.
     */
    private static CompletableFuture<Void> open(StatefulConnection<?, ?> conn, long deadline) {
        if (conn.isOpen() || System.nanoTime() - deadline > 0) {
            return CompletableFuture.completedFuture(null);
        }
        return CompletableFuture.runAsync(() -> { }, CompletableFuture.delayedExecutor(1, TimeUnit.MILLISECONDS))
                .thenCompose(x -> open(conn, deadline));
    }

    static boolean sentinel(RedisURI uri) {
        return uri.getSentinels() != null && !uri.getSentinels().isEmpty();
    }

    /** The server as {@code redis://host:port} (never with credentials). */
    static String describe(RedisURI uri) {
        String scheme = uri.isSsl() ? "rediss" : "redis";
        if (sentinel(uri)) {
            return "redis-sentinel://" + uri.getSentinels().get(0).getHost() + ":" + uri.getSentinels().get(0).getPort()
                    + " (master " + uri.getSentinelMasterId() + ")";
        }
        return scheme + "://" + uri.getHost() + ":" + uri.getPort();
    }
}
