package dev.delayq.internal.redis;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pub/sub side: one connection (opened on first use) shared by every subscriber of the client, each channel
 * subscribed once however many workers listen to it. Subscribers hear the messages and every reconnection (after
 * which messages may have been missed). On a cluster, a pub/sub connection is bound to one node; when that node
 * stays down (a failed master), the connection is replaced on a live node after a few seconds and every channel
 * subscribed again.
 */
final class WakeSubscriptions implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WakeSubscriptions.class);
    private static final long REPLACE_AFTER_SECONDS = 5;

    private final Connector.Opened opened;
    private final Duration timeout;
    private final Map<String, CopyOnWriteArrayList<RedisBackend.Subscriber>> subscribers = new ConcurrentHashMap<>();
    private volatile StatefulRedisPubSubConnection<byte[], byte[]> pubsub;
    /** Set by close(): a connection closed on purpose is not replaced. */
    private volatile boolean closed;

    WakeSubscriptions(Connector.Opened opened, Duration timeout) {
        this.opened = opened;
        this.timeout = timeout;
    }

    /** Subscribes; the handle's {@code close()} unsubscribes. Blocks until Redis confirmed the subscription. */
    AutoCloseable subscribe(byte[] channel, RedisBackend.Subscriber subscriber) {
        StatefulRedisPubSubConnection<byte[], byte[]> ps = connection();
        String name = new String(channel, StandardCharsets.ISO_8859_1);
        CopyOnWriteArrayList<RedisBackend.Subscriber> list = subscribers.computeIfAbsent(name, k -> new CopyOnWriteArrayList<>());
        boolean first;
        synchronized (list) {
            first = list.isEmpty();
            list.add(subscriber);
        }
        if (first) {
            try {
                RedisBackend.await(ps.async().subscribe(channel).toCompletableFuture(), "subscribe", opened.server(), timeout);
            } catch (RuntimeException e) {
                // Not subscribed: a registered subscriber would wait for notices that never come.
                synchronized (list) {
                    list.remove(subscriber);
                }
                throw e;
            }
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

    private StatefulRedisPubSubConnection<byte[], byte[]> connection() {
        StatefulRedisPubSubConnection<byte[], byte[]> ps = pubsub;
        if (ps != null) {
            return ps;
        }
        synchronized (this) {
            if (pubsub == null) {
                try {
                    ps = opened.client() instanceof RedisClusterClient cc ? cc.connectPubSub(ByteArrayCodec.INSTANCE)
                            : ((RedisClient) opened.client()).connectPubSub(ByteArrayCodec.INSTANCE);
                } catch (RuntimeException e) {
                    throw RedisErrors.translate(e, "subscribe", opened.server(), timeout);
                }
                ps.addListener(new RedisPubSubAdapter<byte[], byte[]>() {
                    @Override
                    public void message(byte[] channel, byte[] message) {
                        List<RedisBackend.Subscriber> list = subscribers.get(new String(channel, StandardCharsets.ISO_8859_1));
                        if (list != null) {
                            for (RedisBackend.Subscriber s : list) {
                                s.onMessage(message);
                            }
                        }
                    }
                });
                ps.addListener(new StateListener(ps));
                pubsub = ps;
            }
            return pubsub;
        }
    }

    /** Tells subscribers about reconnections, and on a cluster replaces a connection whose node stays down. */
    private final class StateListener implements RedisConnectionStateListener {
        private final StatefulRedisPubSubConnection<byte[], byte[]> mine;
        private volatile boolean connectedOnce;
        private volatile boolean down;

        StateListener(StatefulRedisPubSubConnection<byte[], byte[]> mine) {
            this.mine = mine;
        }

        @Override
        public void onRedisConnected(RedisChannelHandler<?, ?> c, SocketAddress address) {
            down = false;
            if (connectedOnce) {
                reconnected();
            }
            connectedOnce = true;
        }

        @Override
        public void onRedisDisconnected(RedisChannelHandler<?, ?> c) {
            down = true;
            if (opened.client() instanceof RedisClusterClient) {
                // Lettuce would retry a failed master forever: give it a few seconds, then open a new connection,
                // which picks a live node, and subscribe again.
                CompletableFuture.delayedExecutor(REPLACE_AFTER_SECONDS, TimeUnit.SECONDS).execute(() -> {
                    if (down && pubsub == mine && !closed) {
                        replace(mine);
                    }
                });
            }
        }
    }

    private void reconnected() {
        subscribers.values().forEach(list -> list.forEach(RedisBackend.Subscriber::onReconnect));
    }

    private void replace(StatefulRedisPubSubConnection<byte[], byte[]> old) {
        StatefulRedisPubSubConnection<byte[], byte[]> fresh;
        synchronized (this) {
            if (pubsub != old || closed) {
                return;
            }
            pubsub = null;
            old.closeAsync();
            try {
                fresh = connection();
            } catch (RuntimeException e) {
                // The cluster is not reachable either: try again on the next disconnect signal or a later call.
                LOG.warn("could not replace the pub/sub connection to {}: {}", opened.server(), e.getMessage());
                return;
            }
        }
        for (Map.Entry<String, CopyOnWriteArrayList<RedisBackend.Subscriber>> e : subscribers.entrySet()) {
            if (!e.getValue().isEmpty()) {
                fresh.async().subscribe(e.getKey().getBytes(StandardCharsets.ISO_8859_1));
            }
        }
        reconnected();
    }

    @Override
    public void close() {
        closed = true;
        StatefulRedisPubSubConnection<byte[], byte[]> ps = pubsub;
        if (ps != null) {
            ps.close();
        }
    }
}
