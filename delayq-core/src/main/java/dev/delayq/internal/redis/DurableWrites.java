package dev.delayq.internal.redis;

import dev.delayq.DelayQDurabilityException;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.ArrayOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Scripts whose writes must be durable before they count: the script, then {@code WAIT replicas timeout}, or
 * {@code WAITAOF localAof replicas timeout} (Redis 7.2+). Both go over a connection apart from the shared one (WAIT
 * blocks its connection until it returns) and, in a cluster, to the master that owns the script's first key (WAIT
 * counts the writes of its own connection on its own node). Each call borrows a connection of its own from a small
 * pool, so concurrent durable writes wait side by side (each within about one WAIT timeout), never one behind another.
 */
final class DurableWrites implements AutoCloseable {
    /** WAITAOF (Redis 7.2+), which Lettuce has no method for. */
    private static final ProtocolKeyword WAITAOF = new ProtocolKeyword() {
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

    /** Idle connections kept for the next calls; more are opened when calls overlap, and closed when not needed. */
    private static final int IDLE_MAX = 8;

    private final Connector.Opened opened;
    private final Duration timeout;
    private final java.util.concurrent.ConcurrentLinkedDeque<StatefulConnection<byte[], byte[]>> idle =
            new java.util.concurrent.ConcurrentLinkedDeque<>();
    private final java.util.Set<StatefulConnection<byte[], byte[]>> all = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    DurableWrites(Connector.Opened opened, Duration timeout) {
        this.opened = opened;
        this.timeout = timeout;
    }

    /**
     * Runs the script, then waits until its writes are durable. Completes with the script's reply, or fails with
     * {@link DelayQDurabilityException} when fewer copies than asked were confirmed within {@code wait}.
     */
    CompletableFuture<List<Object>> eval(Script script, int localAof, int replicas, Duration wait, byte[][] keys,
                                         byte[][] args) {
        return borrow().thenCompose(conn -> commands(conn, keys[0])
                .thenCompose(c -> ScriptRunner.run(c, script, keys, args).thenCompose(reply -> confirm(c, localAof, replicas, wait)
                        .thenApply(shortfall -> {
                            if (shortfall != null) {
                                throw new CompletionException(new DelayQDurabilityException(script.fileName()
                                        + " was applied but confirmed only " + shortfall + " within " + wait.toMillis()
                                        + " ms on " + opened.server() + ": it may not survive a crash or failover; enqueueing "
                                        + "again with the same id is safe"));
                            }
                            return reply;
                        })))
                .whenComplete((r, e) -> giveBack(conn)))
                .exceptionallyCompose(e -> {
                    if (opened.client() instanceof RedisClusterClient cc && !(RedisErrors.unwrap(e) instanceof DelayQDurabilityException)) {
                        // This path talks to the key's master directly, which bypasses the redirects that make Lettuce
                        // refresh its view of the cluster: after a failover, refresh it now, for the retry.
                        cc.refreshPartitionsAsync();
                    }
                    return CompletableFuture.failedFuture(RedisErrors.translate(e, script.fileName(), opened.server(), timeout));
                });
    }

    /**
     * An idle connection, or a new one, opened without blocking the caller (a durable {@code enqueueAsync} may be
     * chained from a callback on one of Lettuce's I/O threads, where a blocking connect would stall every connection
     * that thread serves).
     */
    private CompletableFuture<StatefulConnection<byte[], byte[]>> borrow() {
        // An idle connection is reused even when it looks closed: a cluster connection whose default node died still
        // reaches every live master through its node connections (and reconnects by itself).
        StatefulConnection<byte[], byte[]> c = idle.pollFirst();
        if (c != null) {
            return CompletableFuture.completedFuture(c);
        }
        CompletableFuture<StatefulConnection<byte[], byte[]>> opening;
        try {
            opening = Connector.anotherAsync(opened);
        } catch (RuntimeException e) {
            opening = CompletableFuture.failedFuture(e);
        }
        return opening.handle((conn, e) -> {
            if (e == null) {
                all.add(conn);
                if (closed) { // closed meanwhile: not kept (close() closed the others)
                    giveBack(conn);
                }
                return CompletableFuture.completedFuture(conn);
            }
            // Opening one more can fail while a cluster fails over (its seed node may be the dead one): then wait
            // behind a connection that exists, as with a single durable connection, rather than fail the write.
            StatefulConnection<byte[], byte[]> any = all.stream().findFirst().orElse(null);
            return any != null ? CompletableFuture.completedFuture(any)
                    : CompletableFuture.<StatefulConnection<byte[], byte[]>>failedFuture(
                    RedisErrors.translate(e, "connect", opened.server(), timeout));
        }).thenCompose(f -> f);
    }

    private void giveBack(StatefulConnection<byte[], byte[]> c) {
        if (idle.contains(c)) {
            return; // lent twice (see borrow): already back
        }
        if (!closed && idle.size() < IDLE_MAX) {
            idle.addFirst(c);
        } else {
            all.remove(c);
            c.closeAsync();
        }
    }

    /** Completes with {@code null} when enough copies confirmed, else with a description of the shortfall. */
    private static CompletableFuture<String> confirm(RedisClusterAsyncCommands<byte[], byte[]> c, int localAof, int replicas,
                                                     Duration wait) {
        if (localAof > 0) {
            return c.dispatch(WAITAOF, new ArrayOutput<>(ByteArrayCodec.INSTANCE),
                    new CommandArgs<>(ByteArrayCodec.INSTANCE).add(localAof).add(replicas).add(wait.toMillis()))
                    .toCompletableFuture().thenApply(counts -> {
                        long aof = (Long) counts.get(0);
                        long reps = (Long) counts.get(1);
                        return aof >= localAof && reps >= replicas ? null
                                : "fsynced by " + aof + " of " + localAof + " AOF(s) and " + reps + " of " + replicas + " replica(s)";
                    });
        }
        return c.waitForReplication(replicas, wait.toMillis()).toCompletableFuture()
                .thenApply(n -> n >= replicas ? null : "on " + n + " of " + replicas + " replica(s)");
    }

    /**
     * The commands of the connection that reaches the master of {@code key}, without blocking: this runs where the
     * connection was opened, on a Lettuce I/O thread, and waiting there for a node's connection (whose handshake that
     * thread may have to serve) would never end.
     */
    private static CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> commands(StatefulConnection<byte[], byte[]> d,
                                                                                          byte[] key) {
        if (d instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster) {
            String node = cluster.getPartitions().getPartitionBySlot(SlotHash.getSlot(key)).getNodeId();
            return cluster.getConnectionAsync(node).thenApply(StatefulRedisConnection::async);
        }
        return CompletableFuture.completedFuture(((StatefulRedisConnection<byte[], byte[]>) d).async());
    }

    @Override
    public void close() {
        closed = true;
        all.forEach(StatefulConnection::close);
        all.clear();
        idle.clear();
    }
}
