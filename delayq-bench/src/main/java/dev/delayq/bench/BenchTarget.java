package dev.delayq.bench;

import dev.delayq.DelayQ;
import dev.delayq.cli.RedisTarget;
import dev.delayq.testkit.RedisServer;
import java.security.SecureRandom;
import java.time.Duration;

/**
 * Where the benchmark runs: a private {@code redis-server} it starts and stops itself, or a server named with
 * {@code --redis}, used only under a unique key prefix whose keys are deleted between repetitions and at the
 * end. FLUSHALL is only ever sent to the private server.
 */
final class BenchTarget implements AutoCloseable {
    private static final String ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";
    private static final Duration LAZY_FREE_WAIT = Duration.ofSeconds(30);

    private final RedisServer server;
    private final dev.delayq.testkit.RedisCluster cluster;
    private final java.util.List<RedisProbe> masters;
    private final String uri;
    private final String prefix;
    private final RedisProbe probe;
    private final Thread cleanupHook;
    /** The server and credentials given with --redis; {@code null} for a private server. */
    private RedisTarget given;
    private boolean cleaned;

    private BenchTarget(RedisServer server, String uri, String prefix, RedisProbe probe, boolean hook) {
        this(server, null, java.util.List.of(probe), uri, prefix, probe, hook);
    }

    private BenchTarget(RedisServer server, dev.delayq.testkit.RedisCluster cluster, java.util.List<RedisProbe> masters,
                        String uri, String prefix, RedisProbe probe, boolean hook) {
        this.server = server;
        this.cluster = cluster;
        this.masters = masters;
        this.uri = uri;
        this.prefix = prefix;
        this.probe = probe;
        // Interrupted with Ctrl-C, the JVM still runs shutdown hooks: leave no keys behind on a shared server.
        this.cleanupHook = hook ? new Thread(this::cleanup, "delayq-bench-cleanup") : null;
        if (cleanupHook != null) {
            Runtime.getRuntime().addShutdownHook(cleanupHook);
        }
    }

    /** Starts a private server (through the testkit) for this run. */
    static BenchTarget privateServer(String prefix, Duration timeout) {
        RedisServer server = RedisServer.start();
        try {
            return new BenchTarget(server, server.uri(), prefix, RedisProbe.connect(server.uri(), null, null, timeout), false);
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /**
     * Starts a private Redis Cluster of {@code masters} masters on loopback ports (through the testkit). The
     * probe talks to its first master (Redis's clock is the machine's: every node runs here); CPU time and
     * clean-up cover every master.
     */
    static BenchTarget privateCluster(String prefix, Duration timeout, int masters) {
        dev.delayq.testkit.RedisCluster cluster = dev.delayq.testkit.RedisCluster.start(masters, 0, 5000);
        java.util.List<RedisProbe> probes = new java.util.ArrayList<>();
        try {
            for (RedisServer n : cluster.masters()) {
                probes.add(RedisProbe.connect(n.uri(), null, null, timeout));
            }
            return new BenchTarget(null, cluster, probes, cluster.uri(), prefix, probes.get(0), false);
        } catch (RuntimeException e) {
            probes.forEach(RedisProbe::close);
            cluster.close();
            throw e;
        }
    }

    /** Whether this is a Redis Cluster. */
    boolean isCluster() {
        return cluster != null;
    }

    /** Redis's CPU time so far (user + system), summed over every master, in microseconds. */
    long cpuMicros() {
        long sum = 0;
        for (RedisProbe p : masters) {
            sum += p.cpuMicros();
        }
        return sum;
    }

    /**
     * Uses the server at {@code uri} under {@code <userPrefix>:bench:<random>}. The delayq client connects first,
     * so an unreachable or unsafe server fails with the same message as every other command.
     */
    static BenchTarget external(RedisTarget given, String userPrefix, BenchConfig config) {
        String prefix = userPrefix + ":bench:" + random(8);
        given.apply(DelayQ.builder()).prefix(prefix).timeout(config.timeout())
                .allowEvictingMemoryPolicy(config.allowEviction()).clientName("delayq-bench").build().close();
        BenchTarget t = new BenchTarget(null, given.clientUri(), prefix, RedisProbe.connect(given.clientUri(),
                given.username(), given.password(), config.timeout()), true);
        t.given = given;
        return t;
    }

    private static String random(int n) {
        SecureRandom r = new SecureRandom();
        StringBuilder b = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            b.append(ALPHABET.charAt(r.nextInt(ALPHABET.length())));
        }
        return b.toString();
    }

    /** The server's URI. */
    String uri() {
        return uri;
    }

    /** The key prefix every client of the run uses. */
    String prefix() {
        return prefix;
    }

    /** The benchmark's own connection. */
    RedisProbe probe() {
        return probe;
    }

    /** Whether the server was started by this run (and nobody else uses it). */
    boolean isPrivate() {
        return server != null || cluster != null;
    }

    /** A key of the benchmark itself (not of a queue), under the run's prefix. */
    String key(String name) {
        return prefix + ":bench-" + name;
    }

    /**
     * Empties the run's keyspace before a repetition: FLUSHALL on the private server; on another server
     * deletes the keys under the prefix and waits until Redis has freed them, so that a memory measurement
     * is not disturbed by a background free.
     */
    void reset() throws InterruptedException {
        if (isPrivate()) {
            masters.forEach(RedisProbe::flushAll);
            return;
        }
        probe.deleteMatching(prefix + ":*");
        // Redis announces nothing when its background free ends: poll the counter, with a deadline.
        long deadline = System.nanoTime() + LAZY_FREE_WAIT.toNanos();
        while (probe.lazyFreePending() > 0 && System.nanoTime() < deadline) {
            RedisClock.parkUntilNanos(System.nanoTime() + 20_000_000L);
        }
    }

    /** A delayq client of this run, named {@code delayq-bench-<role>} in CLIENT LIST. */
    DelayQ client(BenchConfig config, String role) {
        DelayQ.Builder b = given != null ? given.apply(DelayQ.builder()) : DelayQ.builder().redis(uri);
        if (config.trace()) {
            b = BenchTracing.apply(b);
        }
        return b.cluster(isCluster()).prefix(prefix).timeout(config.timeout()).doneRetention(config.doneRetention())
                .allowEvictingMemoryPolicy(config.allowEviction()).clientName("delayq-bench-" + role).build();
    }

    private synchronized void cleanup() {
        if (cleaned) {
            return;
        }
        cleaned = true;
        if (!isPrivate()) {
            probe.deleteMatching(prefix + ":*");
        }
    }

    /** Deletes the run's keys (another server) or stops the private server. */
    @Override
    public void close() {
        try {
            cleanup();
        } finally {
            if (cleanupHook != null) {
                try {
                    Runtime.getRuntime().removeShutdownHook(cleanupHook);
                } catch (IllegalStateException shuttingDown) {
                    // the hook is running or about to: it finds the keys already deleted
                }
            }
            masters.forEach(RedisProbe::close);
            if (cluster != null) {
                cluster.close();
            }
            if (server != null) {
                server.close();
            }
        }
    }
}
