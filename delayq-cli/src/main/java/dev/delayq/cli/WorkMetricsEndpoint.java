package dev.delayq.cli;

import dev.delayq.WorkerMetrics;
import dev.delayq.dashboard.MetricsServer;
import dev.delayq.micrometer.MicrometerMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * {@code work --metrics-port}: the worker's own meters ({@link MicrometerMetrics}: claimed, completed, failed,
 * retried, dead, recovered, leases lost, dispatch lag and run time histograms, in flight, queue depth, Redis errors)
 * in a Prometheus registry, served at {@code http://ADDRESS:PORT/metrics} by the dashboard module's
 * {@link MetricsServer}. Without {@code --metrics-port} it serves nothing and adds no meters.
 */
final class WorkMetricsEndpoint implements AutoCloseable {
    /** The default address: this machine only. */
    static final String DEFAULT_BIND = "127.0.0.1";

    private final PrometheusMeterRegistry registry;
    private final MetricsServer server;
    private final String bind;
    private volatile String url;

    private WorkMetricsEndpoint(PrometheusMeterRegistry registry, MetricsServer server, String bind) {
        this.registry = registry;
        this.server = server;
        this.bind = bind;
    }

    /**
     * The endpoint of the options, checked (exit 2 naming the option) before anything connects.
     *
     * @param port the --metrics-port, or {@code null} for none
     * @param bind the --metrics-bind, or {@code null} for {@value #DEFAULT_BIND}
     */
    static WorkMetricsEndpoint of(Integer port, String bind) {
        if (port == null) {
            if (bind != null) {
                throw new IllegalArgumentException("--metrics-bind " + bind + " needs --metrics-port PORT: the metrics "
                        + "are served only when a port is given");
            }
            return new WorkMetricsEndpoint(null, null, null);
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("--metrics-port is " + port + ": it must be 0 to 65535 (0 = any free port)");
        }
        if (bind != null && bind.isBlank()) {
            throw new IllegalArgumentException("--metrics-bind is empty: give an address such as 127.0.0.1 or 0.0.0.0");
        }
        String address = bind == null ? DEFAULT_BIND : bind.strip();
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        return new WorkMetricsEndpoint(registry, MetricsServer.builder(registry).port(port).bind(address).build(), address);
    }

    /** What the worker reports to: {@code activity}, then the Prometheus registry when there is one. */
    WorkerMetrics metrics(WorkerMetrics activity) {
        return registry == null ? activity : new FanOutMetrics(List.of(activity, new MicrometerMetrics(registry)));
    }

    /** Starts listening; a port in use or an address that cannot be bound is a usage error (exit 2). */
    void start() {
        if (server == null) {
            return;
        }
        try {
            server.start();
        } catch (UncheckedIOException e) {
            throw new CliException(Exit.USAGE, "--metrics-port: " + e.getMessage());
        }
        String host = bind.contains(":") ? "[" + bind + "]" : bind;
        url = "http://" + host + ":" + server.port() + "/metrics";
    }

    /** Where the metrics are served, once started; {@code null} when they are not. */
    String url() {
        return url;
    }

    /** Stops listening. Idempotent. */
    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
    }
}
