package dev.delayq.cli;

import dev.delayq.DelayQ;
import dev.delayq.dashboard.Dashboard;
import java.io.UncheckedIOException;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code delayq dashboard}: the web dashboard, its JSON API and Prometheus metrics, until SIGTERM or Ctrl-C. */
@Command(name = "dashboard", mixinStandardHelpOptions = true,
        description = {"Serve the web dashboard of the queues under --prefix: pages, a JSON API under /api and Prometheus "
                + "metrics at /metrics. Prints 'dashboard: http://<bind>:<port>/' once it listens; SIGTERM or Ctrl-C "
                + "stops it (exit 0).",
                "With a token every request needs 'Authorization: Bearer <token>' or the session of the login page. "
                        + "Listening on an address other than loopback needs a token."},
        footer = {"", "Examples:",
                "  delayq dashboard                                   # http://127.0.0.1:8080/, for this machine only",
                "  DELAYQ_DASHBOARD_TOKEN=$(openssl rand -hex 16) delayq dashboard --bind 0.0.0.0 --port 9000",
                "  delayq dashboard --read-only --redis redis://redis.internal:6379"})
public final class DashboardCommand implements Callable<Integer> {
    @ParentCommand
    Main main;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "8080",
            description = "Port to listen on (default: ${DEFAULT-VALUE}; 0 = any free port).")
    int port;

    @Option(names = "--bind", paramLabel = "ADDRESS", defaultValue = "127.0.0.1",
            description = "Address to listen on (default: ${DEFAULT-VALUE}); any other than loopback needs a token.")
    String bind;

    @Option(names = "--token", paramLabel = "TOKEN",
            description = "Token every request must carry, at least 16 characters. Default: $DELAYQ_DASHBOARD_TOKEN, "
                    + "else none (loopback only).")
    String token;

    @Option(names = "--base-path", paramLabel = "PATH", defaultValue = "/",
            description = "Path to serve under, for a reverse proxy that passes its prefix on (default: ${DEFAULT-VALUE}).")
    String basePath;

    @Option(names = "--trust-forwarded-headers", description = "Believe X-Forwarded-Proto, -Host, -Prefix and -For: only "
            + "behind a reverse proxy that sets them on every request (see docs/dashboard.md).")
    boolean trustForwarded;

    @Option(names = "--read-only", description = "Refuse every change (retry, run now, cancel, delete, pause): only show.")
    boolean readOnly;

    @Override
    public Integer call() throws InterruptedException {
        // A blank token (--token "", DELAYQ_DASHBOARD_TOKEN= ) is refused as a short one, never read as "no token": an
        // operator who meant to protect the dashboard must not get one open to everyone on loopback.
        String t = token != null ? token : System.getenv("DELAYQ_DASHBOARD_TOKEN");
        // Refuse bad settings before connecting, so that a typo never waits for Redis.
        Dashboard.checkSettings(bind, port, t);
        Dashboard.checkBasePath(basePath);
        DelayQ dq = main.client();
        Dashboard dashboard;
        try {
            dashboard = Dashboard.builder(dq).bind(bind).port(port).token(t).readOnly(readOnly)
                    .basePath(basePath).trustForwardedHeaders(trustForwarded).build().start();
        } catch (UncheckedIOException e) {
            throw new CliException(Exit.USAGE, e.getMessage());
        }
        // SIGTERM and Ctrl-C run this: stop listening (requests in progress finish), disconnect, and exit 0, the
        // normal end of a server. halt() because the JVM would otherwise exit 128 + signal after the hooks.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            dashboard.close();
            dq.close();
            main.out().flush();
            main.err().flush();
            Runtime.getRuntime().halt(Exit.OK);
        }, "delayq-dashboard-shutdown"));
        main.out().println("dashboard: " + dashboard.url());
        main.out().flush();
        new CountDownLatch(1).await(); // serve until the JVM is stopped
        return Exit.OK;
    }
}
