package dev.delayq.internal.redis;

import dev.delayq.DelayQConnectionException;
import dev.delayq.DelayQException;
import dev.delayq.DelayQTimeoutException;
import dev.delayq.internal.present.InfoText;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * All Redis access of one client, behind one small surface: scripts ({@link #eval}, {@link #evalDurable}), the few
 * plain commands delayq sends, and wake-up subscriptions. One multiplexed command connection carries every call
 * (Lettuce pipelines concurrent calls on it). The parts: {@link Connector} opens connections, {@link ScriptRunner}
 * runs scripts (NOSCRIPT handled), {@link DurableWrites} waits for replicas or the AOF, {@link WakeSubscriptions}
 * owns pub/sub, {@link RedisErrors} translates failures. Only this package imports Lettuce.
 */
public final class RedisBackend implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RedisBackend.class);
    /** How long {@link #close()} waits for the client to shut down. */
    private static final long SHUTDOWN_WAIT_SECONDS = 10;

    private final Connector.Opened opened;
    private final RedisClusterAsyncCommands<byte[], byte[]> async;
    private final Duration timeout;
    private final DurableWrites durable;
    private final WakeSubscriptions wake;
    /** Whether this backend opened the client (the main one) or shares it (a sibling). */
    private final boolean ownsClient;
    private volatile RedisBackend sibling;

    /** Receives pub/sub messages and reconnection notices of one channel. */
    public interface Subscriber {
        /** A message arrived on the channel. Runs on a Lettuce I/O thread: must not block. */
        void onMessage(byte[] message);

        /** The pub/sub connection came back; messages sent meanwhile may have been missed. */
        void onReconnect();
    }

    private RedisBackend(Connector.Opened opened, Duration timeout, boolean ownsClient) {
        this.opened = opened;
        this.ownsClient = ownsClient;
        this.async = opened.async();
        this.timeout = timeout;
        this.durable = new DurableWrites(opened, timeout);
        this.wake = new WakeSubscriptions(opened, timeout);
    }

    /**
     * Connects to the server named by {@code uri} ({@code redis://}, {@code rediss://} for TLS,
     * {@code redis-sentinel://}); {@code username}/{@code password}, when given, replace the URI's credentials;
     * {@code tlsTrust} is a PEM file of CA certificates to trust (null: the JVM's trust store);
     * {@code reconnectDelay} is the longest wait between reconnection attempts after a connection is lost (null:
     * Lettuce's backoff, which doubles up to 30 s).
     *
     * @throws IllegalArgumentException  when the URI is malformed
     * @throws DelayQConnectionException when the server cannot be reached or refuses the credentials
     */
    public static RedisBackend connect(String uri, String username, char[] password, Duration timeout, String clientName,
                                       boolean cluster, Path tlsTrust, Duration reconnectDelay) {
        RedisURI redisUri = RedisUris.parse(uri);
        if (tlsTrust != null && !redisUri.isSsl()) {
            throw new IllegalArgumentException("TLS trusted certificates (" + tlsTrust + ") were given for '" + RedisUris.mask(uri)
                    + "', which is not a TLS URI: its traffic would not be encrypted; use rediss://");
        }
        redisUri.setTimeout(timeout);
        if (password != null) {
            // The one way to set credentials that Lettuce 6.2+ and 7 share (setAuthentication is 7 only).
            redisUri.setCredentialsProvider(new io.lettuce.core.StaticCredentialsProvider(username, password));
        }
        if (clientName != null) {
            redisUri.setClientName(clientName);
        }
        return new RedisBackend(Connector.open(redisUri, timeout, cluster, tlsTrust, reconnectDelay), timeout, true);
    }

    /**
     * A backend on a command connection of its own (same client, same server), opened on first use and closed with
     * this one: for work that must neither wait behind the hot path nor hold it up, such as a worker's maintenance
     * (replies on one connection come back in order, so a slow purge reply would delay every renewal behind it).
     */
    public RedisBackend sibling() {
        RedisBackend s = sibling;
        if (s == null) {
            synchronized (this) {
                if (sibling == null) {
                    sibling = new RedisBackend(Connector.openAnother(opened, timeout), timeout, false);
                }
                s = sibling;
            }
        }
        return s;
    }

    /**
     * A backend on a new command connection of its own (same client), for a blocking reader; the caller closes it
     * (closing it leaves the client and this backend open).
     */
    public RedisBackend dedicated() {
        return new RedisBackend(Connector.openAnother(opened, timeout), timeout, false);
    }

    /** The server, as {@code redis://host:port} (never with the password). */
    public String server() {
        return opened.server();
    }

    /** {@code single}, {@code cluster} or {@code sentinel}. */
    public String mode() {
        return server().startsWith("cluster ") ? "cluster" : opened.sentinel() ? "sentinel" : "single";
    }

    /**
     * Passes each of Lettuce's events of this client (connections opened and lost, reconnection attempts with their
     * delay) to {@code listener} until the result is closed: what an operator's diagnostics, and the tests of the
     * reconnect delay, observe.
     */
    public AutoCloseable onClientEvent(java.util.function.Consumer<Object> listener) {
        var subscription = opened.client().getResources().eventBus().get().subscribe(listener::accept);
        return subscription::dispose;
    }

    /** The command timeout. */
    public Duration timeout() {
        return timeout;
    }

    // ---- scripts ----------------------------------------------------------------------------------------------

    /**
     * Runs a script (EVALSHA, EVAL on NOSCRIPT). The reply is the script's: {@code Long}, {@code byte[]},
     * {@code null} or nested {@code List<Object>}; failures are delayq exceptions.
     */
    public CompletableFuture<List<Object>> eval(Script script, byte[][] keys, byte[]... args) {
        return wrap(ScriptRunner.run(async, script, keys, args), script.fileName());
    }

    /**
     * Runs a script and then waits until its writes are durable ({@code WAIT}, or {@code WAITAOF} with
     * {@code localAof > 0}); fails with {@link dev.delayq.DelayQDurabilityException} when fewer copies than asked
     * were confirmed within {@code wait}.
     */
    public CompletableFuture<List<Object>> evalDurable(Script script, int localAof, int replicas, Duration wait,
                                                      byte[][] keys, byte[]... args) {
        return durable.eval(script, localAof, replicas, wait, keys, args);
    }

    /**
     * Loads every script into the server's cache, so that the first calls do not all meet NOSCRIPT at once. A cluster
     * client sends the load to every node, connecting to the ones it has just learned of; a node whose connection is
     * not up yet rejects it ("not connected"), so connection errors are retried until the timeout has passed. Other
     * errors (rights, a script Redis refuses) fail at once.
     */
    public void loadScripts() {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                await(ScriptRunner.loadAll(async), "script load");
                return;
            } catch (DelayQConnectionException e) {
                if (System.nanoTime() - deadline >= 0) {
                    throw e;
                }
                try {
                    TimeUnit.MILLISECONDS.sleep(50); // a node's connection is being set up: try again shortly
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    // ---- plain commands ---------------------------------------------------------------------------------------

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
        byte[] v = await(async.hget(key, field.getBytes(StandardCharsets.UTF_8)).toCompletableFuture(), "hget");
        return v == null ? null : new String(v, StandardCharsets.UTF_8);
    }

    /** HSETNX; {@code true} when this call set the field. */
    public boolean hsetnx(byte[] key, String field, String value) {
        return await(async.hsetnx(key, field.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8))
                .toCompletableFuture(), "hsetnx");
    }

    /** EXISTS of one key. */
    public CompletableFuture<Boolean> exists(byte[] key) {
        return wrap(async.exists(key).toCompletableFuture().thenApply(n -> n > 0), "exists");
    }

    /** One entry of a stream: its id and its fields, decoded as UTF-8. */
    public record StreamEntry(String id, Map<String, String> fields) {
    }

    /**
     * Up to {@code count} entries of stream {@code key} after {@code afterId} (XREAD; with {@code blockMillis > 0} it waits
     * that long for one to come, which blocks this connection: use it on a {@link #dedicated()} backend only).
     */
    public List<StreamEntry> xreadAfter(byte[] key, String afterId, int count, long blockMillis) {
        io.lettuce.core.XReadArgs args = io.lettuce.core.XReadArgs.Builder.count(count);
        if (blockMillis > 0) {
            args.block(blockMillis);
        }
        List<io.lettuce.core.StreamMessage<byte[], byte[]>> got = await(wrap(async.xread(args,
                io.lettuce.core.XReadArgs.StreamOffset.from(key, afterId)).toCompletableFuture(), "xread"), "xread",
                blockMillis);
        List<StreamEntry> out = new ArrayList<>(got == null ? 0 : got.size());
        if (got != null) {
            for (io.lettuce.core.StreamMessage<byte[], byte[]> m : got) {
                Map<String, String> fields = new LinkedHashMap<>();
                m.getBody().forEach((k, v) -> fields.put(new String(k, StandardCharsets.UTF_8), new String(v, StandardCharsets.UTF_8)));
                out.add(new StreamEntry(m.getId(), fields));
            }
        }
        return out;
    }

    /** The id of the newest entry of stream {@code key}, or "0" when it is empty or absent. */
    public String lastStreamId(byte[] key) {
        List<io.lettuce.core.StreamMessage<byte[], byte[]>> last = await(wrap(async.xrevrange(key,
                io.lettuce.core.Range.create("-", "+"), io.lettuce.core.Limit.from(1)).toCompletableFuture(), "xrevrange"),
                "xrevrange");
        return last == null || last.isEmpty() ? "0" : last.get(0).getId();
    }

    /** PUBLISH. */
    public CompletableFuture<Long> publish(byte[] channel, byte[] message) {
        return wrap(async.publish(channel, message).toCompletableFuture(), "publish");
    }

    /**
     * {@code CONFIG GET name}; empty when the command is not allowed (managed services often disable CONFIG) or the
     * parameter does not exist.
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
        return InfoText.parse(await(async.info(section).toCompletableFuture(), "info"));
    }

    /**
     * Deletes every key matching {@code pattern} (SCAN + UNLINK; on a cluster, every master); returns how many. Glob
     * characters in {@code pattern} are the caller's to escape.
     */
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

    /** Every key matching {@code pattern} (SCAN), decoded as Latin-1. For tests and tools. */
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

    // ---- pub/sub ----------------------------------------------------------------------------------------------

    /** Subscribes to a channel (the pub/sub connection opens on first use); the handle's {@code close()} unsubscribes. */
    public AutoCloseable subscribe(byte[] channel, Subscriber subscriber) {
        return wake.subscribe(channel, subscriber);
    }

    // ---- waiting and errors -----------------------------------------------------------------------------------

    /** Waits for a future of this backend, translating failures into delayq exceptions. */
    public <T> T await(CompletableFuture<T> future, String what) {
        return await(future, what, server(), timeout);
    }

    private <T> T await(CompletableFuture<T> future, String what, long extraMillis) {
        try {
            return future.get(timeout.toMillis() + extraMillis + 5_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DelayQException(what + " was interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw RedisErrors.translate(e, what, server(), timeout);
        }
    }

    static <T> T await(CompletableFuture<T> future, String what, String server, Duration timeout) {
        try {
            // Lettuce enforces the command timeout; the extra margin only guards against a lost callback.
            return future.get(timeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DelayQException(what + " was interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw RedisErrors.translate(e, what, server, timeout);
        }
    }

    private <T> CompletableFuture<T> wrap(CompletableFuture<T> f, String what) {
        return f.exceptionallyCompose(e -> CompletableFuture.failedFuture(RedisErrors.translate(e, what, server(), timeout)));
    }

    @Override
    public void close() {
        RedisBackend s = sibling;
        if (s != null) {
            s.close();
        }
        wake.close();
        durable.close();
        opened.connection().close();
        if (ownsClient) {
            // Bounded: a shutdown whose completion never came (seen once in the suite: Lettuce's threads had ended, its
            // future never completed) must not hang the caller's close forever.
            try {
                opened.client().shutdownAsync(0, 2, TimeUnit.SECONDS).get(SHUTDOWN_WAIT_SECONDS, TimeUnit.SECONDS);
                if (opened.ownResources()) {
                    // Its threads end on their own once the client is down (Lettuce's future type is Netty's: not awaited).
                    opened.client().getResources().shutdown(0, 2, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                LOG.warn("closing the Redis client of {} did not finish within {} s ({}); going on", server(),
                        SHUTDOWN_WAIT_SECONDS, e.toString());
            }
        }
    }

    @Override
    public String toString() {
        return "RedisBackend[" + server() + "]";
    }
}
