package dev.delayq.dashboard;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A Prometheus scrape endpoint for an application's own meters, e.g. a worker's ({@code delayq.jobs.completed},
 * {@code delayq.dispatch.lag}, ...): {@code GET /metrics} on a port, in the Prometheus text format, and nothing else.
 * One thread; the JDK's HTTP server, so a worker needs no web framework for it.
 *
 * <pre>{@code
 * PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
 * Worker worker = Worker.builder(queue, handler).metrics(new MicrometerMetrics(registry)).build().start();
 * MetricsServer metrics = MetricsServer.builder(registry).port(9400).bind("0.0.0.0").build().start();
 * }</pre>
 */
public final class MetricsServer implements AutoCloseable {
    private static final String TEXT_FORMAT = "text/plain; version=0.0.4; charset=utf-8";

    private final PrometheusMeterRegistry registry;
    private final String bind;
    private final int port;
    private HttpServer server;
    private ExecutorService executor;

    private MetricsServer(Builder b) {
        this.registry = b.registry;
        this.bind = b.bind;
        this.port = b.port;
    }

    /** A builder serving {@code registry}: port 9400, address 127.0.0.1. */
    public static Builder builder(PrometheusMeterRegistry registry) {
        return new Builder(Objects.requireNonNull(registry, "registry"));
    }

    /**
     * Starts listening.
     *
     * @return this server
     * @throws UncheckedIOException  when the address cannot be bound (port in use)
     * @throws IllegalStateException when it was started before
     */
    public synchronized MetricsServer start() {
        if (server != null) {
            throw new IllegalStateException("the metrics server is already started");
        }
        HttpServer s;
        try {
            s = HttpServer.create(new InetSocketAddress(bind, port), 16);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on " + bind + ":" + port + " for metrics: " + e.getMessage()
                    + " (is the port in use? choose another one)", e);
        }
        executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "delayq-metrics-http");
            t.setDaemon(true);
            return t;
        });
        s.setExecutor(executor);
        s.createContext("/", this::handle);
        s.start();
        server = s;
        return this;
    }

    private void handle(HttpExchange exchange) throws IOException {
        try {
            String path = exchange.getRequestURI().getPath();
            String method = exchange.getRequestMethod();
            int status;
            byte[] body;
            if (!path.equals("/metrics")) {
                status = 404;
                body = "not found: the metrics are at /metrics\n".getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
            } else if (!method.equals("GET") && !method.equals("HEAD")) {
                status = 405;
                body = "only GET\n".getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
            } else {
                status = 200;
                body = registry.scrape().getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", TEXT_FORMAT);
            }
            exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
            if (method.equals("HEAD")) {
                exchange.sendResponseHeaders(status, -1);
                return;
            }
            exchange.sendResponseHeaders(status, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        } finally {
            exchange.close();
        }
    }

    /** The port listened on (the one the system chose when built with port 0). */
    public synchronized int port() {
        if (server == null) {
            throw new IllegalStateException("the metrics server is not started");
        }
        return server.getAddress().getPort();
    }

    /** Stops listening. Idempotent. */
    @Override
    public synchronized void close() {
        if (server != null) {
            server.stop(0);
            executor.shutdownNow();
            server = null;
        }
    }

    /** Builder of a {@link MetricsServer}. */
    public static final class Builder {
        private final PrometheusMeterRegistry registry;
        private String bind = "127.0.0.1";
        private int port = 9400;

        private Builder(PrometheusMeterRegistry registry) {
            this.registry = registry;
        }

        /** The port (default 9400; 0 = any free port). */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("metrics port is " + port + ": it must be 0 to 65535");
            }
            this.port = port;
            return this;
        }

        /** The address (default 127.0.0.1; {@code 0.0.0.0} for a Prometheus server on another host). */
        public Builder bind(String address) {
            if (address == null || address.isBlank()) {
                throw new IllegalArgumentException("metrics bind address is empty: give e.g. 127.0.0.1 or 0.0.0.0");
            }
            this.bind = address.strip();
            return this;
        }

        /** The server, not yet listening. */
        public MetricsServer build() {
            return new MetricsServer(this);
        }
    }
}
