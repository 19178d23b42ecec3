package dev.delayq.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A private Redis Cluster on loopback ports, formed by us: {@code masters} masters sharing the 16,384 slots
 * evenly, each with {@code replicasPerMaster} replicas, joined with CLUSTER MEET, ADDSLOTS and REPLICATE
 * (no redis-cli needed). It is ready (cluster_state:ok on every node, every replica linked) when
 * {@link #start} returns, and {@link #close()} stops every node.
 */
public final class RedisCluster implements AutoCloseable {
    private static final Duration READY = Duration.ofSeconds(60);
    private static final int SLOTS = 16384;

    private final List<RedisServer> masters;
    private final List<RedisServer> replicas;
    private final List<String> masterIds;

    private RedisCluster(List<RedisServer> masters, List<RedisServer> replicas, List<String> masterIds) {
        this.masters = masters;
        this.replicas = replicas;
        this.masterIds = masterIds;
    }

    /** Starts and forms a cluster; {@code nodeTimeoutMillis} is how long a silent master takes to be failed over. */
    public static RedisCluster start(int masters, int replicasPerMaster, long nodeTimeoutMillis) {
        if (masters < 3) {
            throw new IllegalArgumentException("a cluster needs at least 3 masters, got " + masters);
        }
        List<RedisServer> ms = new ArrayList<>();
        List<RedisServer> rs = new ArrayList<>();
        try {
            for (int i = 0; i < masters; i++) {
                ms.add(node(nodeTimeoutMillis));
            }
            for (int i = 0; i < masters * replicasPerMaster; i++) {
                rs.add(node(nodeTimeoutMillis));
            }
            List<RedisServer> all = new ArrayList<>(ms);
            all.addAll(rs);
            RedisServer first = all.get(0);
            for (RedisServer n : all.subList(1, all.size())) {
                first.call("CLUSTER", "MEET", n.host(), String.valueOf(n.port()));
            }
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < masters; i++) {
                int from = i * SLOTS / masters;
                int to = (i + 1) * SLOTS / masters;
                List<String> cmd = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
                for (int s = from; s < to; s++) {
                    cmd.add(String.valueOf(s));
                }
                ms.get(i).call(cmd.toArray(new String[0]));
                ids.add(String.valueOf(ms.get(i).call("CLUSTER", "MYID")));
            }
            await("every node to know every other", () -> all.stream().allMatch(n -> knownNodes(n) == all.size()));
            for (int i = 0; i < rs.size(); i++) {
                String master = ids.get(i % masters);
                RedisServer replica = rs.get(i);
                await("replica " + replica.port() + " to learn its master", () -> {
                    try {
                        replica.call("CLUSTER", "REPLICATE", master);
                        return true;
                    } catch (UncheckedIOException e) {
                        return false; // "Unknown node" until the gossip has reached it
                    }
                });
            }
            RedisCluster cluster = new RedisCluster(ms, rs, ids);
            cluster.awaitHealthy();
            return cluster;
        } catch (RuntimeException e) {
            ms.forEach(RedisServer::close);
            rs.forEach(RedisServer::close);
            throw e;
        }
    }

    private static RedisServer node(long nodeTimeoutMillis) {
        return RedisServer.builder()
                .config("cluster-enabled", "yes")
                .config("cluster-config-file", "nodes.conf")
                .config("cluster-node-timeout", String.valueOf(nodeTimeoutMillis))
                .config("appendonly", "yes")
                .config("appendfsync", "everysec")
                .start();
    }

    private static int knownNodes(RedisServer n) {
        String nodes = String.valueOf(n.call("CLUSTER", "NODES"));
        int count = 0;
        for (String line : nodes.split("\n")) {
            if (!line.isBlank() && !line.contains("handshake") && !line.contains("noaddr")) {
                count++;
            }
        }
        return count;
    }

    /** Waits until every running node reports cluster_state:ok and every running replica is linked to its master. */
    public void awaitHealthy() {
        await("cluster_state:ok and linked replicas", () -> {
            for (RedisServer n : running()) {
                Map<String, String> info = parse(String.valueOf(n.call("CLUSTER", "INFO")));
                if (!"ok".equals(info.get("cluster_state"))) {
                    return false;
                }
                Map<String, String> repl = n.info("replication");
                if ("slave".equals(repl.get("role")) && !"up".equals(repl.get("master_link_status"))) {
                    return false;
                }
            }
            return true;
        });
    }

    private static Map<String, String> parse(String info) {
        Map<String, String> out = new java.util.LinkedHashMap<>();
        for (String line : info.split("\r?\n")) {
            int i = line.indexOf(':');
            if (i > 0) {
                out.put(line.substring(0, i), line.substring(i + 1).trim());
            }
        }
        return out;
    }

    private static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + READY.toNanos();
        while (true) {
            try {
                if (condition.getAsBoolean()) {
                    return;
                }
            } catch (UncheckedIOException e) {
                // a node restarting or still loading: try again until the deadline
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Redis Cluster: timed out after " + READY.toSeconds() + " s waiting for " + what);
            }
            try {
                TimeUnit.MILLISECONDS.sleep(50); // gossip converges on Redis's own timers; nothing to be woken by
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, e);
            }
        }
    }

    /** Every node that is running. */
    public List<RedisServer> running() {
        List<RedisServer> out = new ArrayList<>();
        for (RedisServer n : all()) {
            if (n.isRunning()) {
                out.add(n);
            }
        }
        return out;
    }

    /** Every node, masters first. */
    public List<RedisServer> all() {
        List<RedisServer> out = new ArrayList<>(masters);
        out.addAll(replicas);
        return out;
    }

    /** The nodes started as masters (after a failover one of them may be a replica or dead). */
    public List<RedisServer> masters() {
        return List.copyOf(masters);
    }

    /** The nodes started as replicas. */
    public List<RedisServer> replicas() {
        return List.copyOf(replicas);
    }

    /** The node id of the i-th started master. */
    public String masterId(int i) {
        return masterIds.get(i);
    }

    /** A seed URI: {@code redis://127.0.0.1:<port of the first running node>}. */
    public String uri() {
        return running().get(0).uri();
    }

    /** The node that currently serves {@code slot} as master, asked of a running node. */
    public RedisServer masterOf(int slot) {
        for (RedisServer n : running()) {
            Object slots = n.call("CLUSTER", "SLOTS");
            for (Object range : (List<?>) slots) {
                List<?> r = (List<?>) range;
                long from = (Long) r.get(0);
                long to = (Long) r.get(1);
                if (slot >= from && slot <= to) {
                    long port = (Long) ((List<?>) r.get(2)).get(1);
                    for (RedisServer s : all()) {
                        if (s.port() == port) {
                            return s;
                        }
                    }
                }
            }
        }
        throw new IllegalStateException("no running node serves slot " + slot);
    }

    /** The hash slot of a key (CRC16 of its hash tag), as Redis Cluster computes it. */
    public int slotOf(String key) {
        try (Resp r = running().get(0).connect()) {
            return ((Long) r.call("CLUSTER", "KEYSLOT", key)).intValue();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        all().forEach(RedisServer::close);
    }

    @Override
    public String toString() {
        return "RedisCluster[" + masters.size() + " masters, " + replicas.size() + " replicas, seed " + uri() + "]";
    }
}
