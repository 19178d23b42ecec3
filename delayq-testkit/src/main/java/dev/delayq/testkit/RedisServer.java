package dev.delayq.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A private {@code redis-server} process on a free loopback port, owned by this JVM.
 *
 * <p>It is started with persistence off (unless configured otherwise) in its own temporary directory, is
 * answered before {@link Builder#start()} returns, and is stopped by {@link #close()} (or, at the latest, by
 * a JVM shutdown hook). Nothing here ever connects to a server it did not start.
 *
 * <pre>{@code
 * try (RedisServer redis = RedisServer.start()) {
 *     String uri = redis.uri(); // redis://127.0.0.1:<port>
 * }
 * }</pre>
 */
public final class RedisServer implements AutoCloseable {
    private static final String HOST = "127.0.0.1";
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(20);
    private static final Set<RedisServer> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (RedisServer s : RUNNING) {
                s.destroyProcess();
            }
        }, "delayq-testkit-redis-reaper"));
    }

    private final RedisBinary binary;
    private final Map<String, String> config;
    private final Path dir;
    private final Path log;
    private final int port;
    private volatile Process process;
    private volatile boolean closed;

    private RedisServer(RedisBinary binary, Map<String, String> config, Path dir, int port) {
        this.binary = binary;
        this.config = config;
        this.dir = dir;
        this.log = dir.resolve("redis.log");
        this.port = port;
    }

    /** Starts a server with the default settings. */
    public static RedisServer start() {
        return builder().start();
    }

    /** A builder for a server with extra configuration. */
    public static Builder builder() {
        return new Builder();
    }

    /** Builder of a {@link RedisServer}; every {@link #config} entry becomes a {@code --name value} argument. */
    public static final class Builder {
        private final Map<String, String> config = new LinkedHashMap<>();
        private RedisBinary binary;
        private int port;

        private Builder() {
            config.put("save", "");
            config.put("appendonly", "no");
        }

        /** Sets one redis.conf directive, e.g. {@code config("appendonly", "yes")}. */
        public Builder config(String name, String value) {
            config.put(name, value);
            return this;
        }

        /** Uses this binary instead of {@link RedisBinary#locate()}. */
        public Builder binary(RedisBinary binary) {
            this.binary = binary;
            return this;
        }

        /** Uses this port instead of a free one (the caller guarantees it is free). */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /**
         * Starts the process and waits until it answers PING.
         *
         * @throws IllegalStateException when it does not come up (the message has the log's tail)
         */
        public RedisServer start() {
            RedisBinary b = binary != null ? binary : RedisBinary.locate();
            IllegalStateException last = null;
            // A port found free can be taken by someone else before redis binds it: retry with another.
            for (int attempt = 0; attempt < 5; attempt++) {
                int p = port > 0 ? port : freePort();
                Path dir;
                try {
                    dir = Files.createTempDirectory("delayq-redis-" + p + "-");
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                RedisServer server = new RedisServer(b, Collections.unmodifiableMap(new LinkedHashMap<>(config)), dir, p);
                try {
                    server.launch();
                    return server;
                } catch (IllegalStateException e) {
                    server.close();
                    last = e;
                    if (port > 0 || !e.getMessage().contains("Address already in use")) {
                        throw e;
                    }
                }
            }
            throw last;
        }
    }

    /** Finds a free TCP port on the loopback interface. */
    public static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    private void launch() {
        List<String> cmd = new ArrayList<>();
        cmd.add(binary.path().toString());
        cmd.add("--port");
        cmd.add(String.valueOf(port));
        cmd.add("--bind");
        cmd.add(HOST);
        cmd.add("--dir");
        cmd.add(dir.toString());
        cmd.add("--logfile");
        cmd.add(log.toString());
        cmd.add("--daemonize");
        cmd.add("no");
        for (Map.Entry<String, String> e : config.entrySet()) {
            cmd.add("--" + e.getKey());
            cmd.add(e.getValue());
        }
        try {
            process = new ProcessBuilder(cmd)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("stdout.log").toFile()))
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + binary + ": " + e.getMessage(), e);
        }
        RUNNING.add(this);
        awaitReady();
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        String lastError = "no answer";
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-server on port " + port + " exited with status "
                        + process.exitValue() + ": " + logTail());
            }
            try (Resp r = new Resp(HOST, port, 1000)) {
                if ("PONG".equals(r.callString("PING"))) {
                    return;
                }
            } catch (Resp.ErrorReply e) {
                if (e.getMessage().startsWith("NOAUTH")) {
                    return; // up, and protected by requirepass
                }
                lastError = e.getMessage(); // -LOADING while it reads its AOF
            } catch (IOException e) {
                lastError = e.getMessage(); // not listening yet
            }
            try {
                // Readiness poll of a process we just started; the interval only bounds start-up latency.
                process.waitFor(20, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for redis-server", e);
            }
        }
        destroyProcess();
        throw new IllegalStateException("redis-server on port " + port + " did not answer within "
                + READY_TIMEOUT.toSeconds() + " s (" + lastError + "): " + logTail());
    }

    /** The host it listens on: always {@code 127.0.0.1}. */
    public String host() {
        return HOST;
    }

    /** The port it listens on. */
    public int port() {
        return port;
    }

    /** {@code redis://127.0.0.1:<port>}. */
    public String uri() {
        return "redis://" + HOST + ":" + port;
    }

    /** The binary it runs. */
    public RedisBinary binary() {
        return binary;
    }

    /** Its working directory (AOF and RDB files live here). */
    public Path dir() {
        return dir;
    }

    /** The process id, or -1 when not running. */
    public long pid() {
        Process p = process;
        return p != null && p.isAlive() ? p.pid() : -1;
    }

    /** Whether the process is alive. */
    public boolean isRunning() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /** A new raw connection to this server, authenticated when it has a {@code requirepass} (the caller closes it). */
    public Resp connect() {
        try {
            Resp r = new Resp(HOST, port, 10_000);
            String password = config.get("requirepass");
            if (password != null && !password.isEmpty()) {
                r.call("AUTH", password);
            }
            return r;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot connect to " + uri(), e);
        }
    }

    /** Runs one command on a fresh connection and returns its reply (see {@link Resp#call}). */
    public Object call(String... args) {
        try (Resp r = connect()) {
            return r.call(args);
        } catch (IOException e) {
            throw new UncheckedIOException(String.join(" ", args) + " failed on " + uri() + ": " + e.getMessage(), e);
        }
    }

    /** {@code INFO <section>} as a map of field to value. */
    public Map<String, String> info(String section) {
        String text = String.valueOf(call("INFO", section));
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : text.split("\r?\n")) {
            int i = line.indexOf(':');
            if (i > 0 && !line.startsWith("#")) {
                out.put(line.substring(0, i), line.substring(i + 1).trim());
            }
        }
        return out;
    }

    /** Kills the process with SIGKILL (no shutdown, no final fsync), as a crash would. */
    public void kill() {
        Process p = process;
        if (p != null) {
            p.destroyForcibly();
            waitExit(p);
        }
        RUNNING.remove(this);
    }

    /** Starts the process again on the same port, directory and configuration (e.g. after {@link #kill()}). */
    public void restart() {
        if (closed) {
            throw new IllegalStateException("server on port " + port + " is closed");
        }
        if (isRunning()) {
            kill();
        }
        launch();
    }

    /** Stops the process with SIGSTOP (it keeps its sockets but answers nothing) until {@link #resume()}. */
    public void pause() {
        signal("STOP");
    }

    /** Resumes a {@link #pause() paused} process with SIGCONT. */
    public void resume() {
        signal("CONT");
    }

    private void signal(String name) {
        long pid = pid();
        if (pid < 0) {
            throw new IllegalStateException("redis-server on port " + port + " is not running");
        }
        try {
            Process k = new ProcessBuilder("kill", "-" + name, String.valueOf(pid)).start();
            if (!k.waitFor(10, TimeUnit.SECONDS) || k.exitValue() != 0) {
                throw new IllegalStateException("kill -" + name + " " + pid + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The last lines of the server's log, for error messages. */
    public String logTail() {
        try {
            if (!Files.exists(log)) {
                return "(no log)";
            }
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
        } catch (IOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    /** Stops the server (SHUTDOWN NOSAVE, then SIGKILL if it lingers) and deletes its directory. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        Process p = process;
        if (p != null && p.isAlive()) {
            try (Resp r = connect()) {
                r.call("SHUTDOWN", "NOSAVE");
            } catch (IOException | RuntimeException expected) {
                // SHUTDOWN closes the connection without a reply; a dead or paused server lands here too.
            }
            try {
                if (!p.waitFor(5, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    waitExit(p);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            }
        }
        RUNNING.remove(this);
        deleteDir();
    }

    private void destroyProcess() {
        Process p = process;
        if (p != null) {
            p.destroyForcibly();
        }
    }

    private static void waitExit(Process p) {
        try {
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void deleteDir() {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // best effort: a temporary directory
        }
    }

    @Override
    public String toString() {
        return "RedisServer[" + uri() + ", " + binary.version() + "]";
    }
}
