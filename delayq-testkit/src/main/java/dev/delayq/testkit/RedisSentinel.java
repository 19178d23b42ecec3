package dev.delayq.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A private Redis Sentinel on a free loopback port, monitoring one master under a name. Sentinel rewrites its
 * configuration file, so it gets one of its own in a temporary directory, deleted by {@link #close()}.
 */
public final class RedisSentinel implements AutoCloseable {
    private final Process process;
    private final Path dir;
    private final int port;
    private final String masterName;

    private RedisSentinel(Process process, Path dir, int port, String masterName) {
        this.process = process;
        this.dir = dir;
        this.port = port;
        this.masterName = masterName;
    }

    /**
     * Starts a sentinel monitoring {@code master} as {@code masterName} with quorum 1, declaring it down after
     * {@code downAfterMillis} of silence.
     */
    public static RedisSentinel start(String masterName, RedisServer master, long downAfterMillis) {
        int port = RedisServer.freePort();
        try {
            Path dir = Files.createTempDirectory("delayq-sentinel-" + port + "-");
            Path conf = dir.resolve("sentinel.conf");
            Files.writeString(conf, String.join("\n",
                    "port " + port,
                    "bind 127.0.0.1",
                    "dir " + dir,
                    "logfile " + dir.resolve("sentinel.log"),
                    "sentinel monitor " + masterName + " 127.0.0.1 " + master.port() + " 1",
                    "sentinel down-after-milliseconds " + masterName + " " + downAfterMillis,
                    "sentinel failover-timeout " + masterName + " " + Math.max(1000, downAfterMillis * 4),
                    ""), StandardCharsets.UTF_8);
            Process p = new ProcessBuilder(RedisBinary.locate().path().toString(), conf.toString(), "--sentinel")
                    .directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("stdout.log").toFile()).start();
            RedisSentinel s = new RedisSentinel(p, dir, port, masterName);
            s.awaitMaster();
            return s;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void awaitMaster() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis sentinel on port " + port + " exited: " + log());
            }
            try (Resp r = new Resp("127.0.0.1", port, 1000)) {
                if (r.call("SENTINEL", "get-master-addr-by-name", masterName) instanceof List<?> addr && addr.size() == 2) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            try {
                process.waitFor(20, TimeUnit.MILLISECONDS); // readiness poll of a process we just started
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        close();
        throw new IllegalStateException("redis sentinel on port " + port + " did not report its master: " + log());
    }

    /** The port it listens on. */
    public int port() {
        return port;
    }

    /** {@code redis-sentinel://127.0.0.1:<port>#<master name>}: the URI clients connect with. */
    public String uri() {
        return "redis-sentinel://127.0.0.1:" + port + "#" + masterName;
    }

    /** Runs a command on the sentinel (e.g. {@code SENTINEL FAILOVER <name>}). */
    public Object call(String... args) {
        try (Resp r = new Resp("127.0.0.1", port, 10_000)) {
            return r.call(args);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The port of the master the sentinel currently names. */
    public int masterPort() {
        List<?> addr = (List<?>) call("SENTINEL", "get-master-addr-by-name", masterName);
        return Integer.parseInt(String.valueOf(addr.get(1)));
    }

    private String log() {
        try {
            Path log = dir.resolve("sentinel.log");
            return Files.exists(log) ? Files.readString(log) : "(no log)";
        } catch (IOException e) {
            return "(log unreadable)";
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // best effort: a temporary directory
        }
    }
}
