package dev.delayq.dashboard;

import dev.delayq.DelayQ;
import io.javalin.Javalin;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The operator dashboard of a {@link DelayQ} client: web pages, a JSON API under {@code /api} and a Prometheus
 * endpoint at {@code /metrics}, served by an embedded Jetty (through Javalin).
 *
 * <pre>{@code
 * Dashboard dashboard = Dashboard.builder(dq).port(8080).token(System.getenv("DELAYQ_DASHBOARD_TOKEN")).build().start();
 * // ... dashboard.close(); then dq.close();
 * }</pre>
 *
 * <p>Safe by default: it listens on 127.0.0.1 only, refuses any other address without a token, and with a token
 * every request needs {@code Authorization: Bearer <token>} or the session cookie of the login page. Mutations are
 * POST or DELETE, refused for cross-site requests and, in read-only mode, refused altogether. Everything read from
 * Redis is sent as JSON and rendered as text by the pages; payloads are previewed, never sent whole.
 *
 * <p>The dashboard does not own the client: close the dashboard first, then the client.
 */
public final class Dashboard implements AutoCloseable {
    /** The default port. */
    public static final int DEFAULT_PORT = 8080;
    /** The default address: loopback only. */
    public static final String DEFAULT_BIND = "127.0.0.1";
    /** The shortest token accepted: a guessable token is no protection. */
    public static final int MIN_TOKEN_LENGTH = 16;
    /** How much of a payload the API and the pages show (the rest is only counted). */
    public static final int PAYLOAD_PREVIEW_BYTES = 4096;
    /** How often the pages read the API again by default. */
    public static final Duration DEFAULT_REFRESH = Pages.DEFAULT_REFRESH;

    private final DelayQ dq;
    private final String bind;
    private final int requestedPort;
    private final Access access;
    private final QueueMeters meters;
    private final PrometheusMeterRegistry registry;
    private final boolean ownRegistry;
    private final Supplier<? extends Map<String, ?>> outbox;
    private final boolean trustForwarded;
    private final String basePath;
    private final Duration refresh;
    private Javalin app;

    private Dashboard(Builder b) {
        this.dq = b.dq;
        this.bind = b.bind;
        this.requestedPort = b.port;
        this.ownRegistry = b.registry == null;
        this.registry = b.registry != null ? b.registry : new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        this.meters = new QueueMeters(dq, registry, b.metricsQueueLimit, b.metricsGroupLimit);
        this.access = new Access(b.token, b.readOnly, b.bind);
        this.outbox = b.outbox;
        this.trustForwarded = b.trustForwarded;
        this.basePath = b.basePath;
        this.refresh = b.refresh;
    }

    /**
     * A builder for a dashboard of {@code dq}: port 8080, address 127.0.0.1, no token, mutations allowed.
     *
     * @throws NullPointerException when {@code dq} is null
     */
    public static Builder builder(DelayQ dq) {
        return new Builder(Objects.requireNonNull(dq, "dq"));
    }

    /**
     * Checks settings as {@link Builder#build()} does, for a caller that wants to refuse bad ones before it connects
     * to Redis (the command line): the port range, the token's form, and that an address other than loopback has a
     * token.
     *
     * @param bind  the address to listen on
     * @param port  the port, 0 to 65535
     * @param token the token, or {@code null} for none
     * @throws IllegalArgumentException naming the bad setting and what is allowed
     */
    public static void checkSettings(String bind, int port, String token) {
        checkPort(port);
        checkToken(token);
        checkExposure(checkBind(bind), token);
    }

    /**
     * Checks a {@link Builder#basePath} as the builder does, for a caller that refuses bad settings before it connects
     * to Redis (the command line).
     *
     * @return the path without a trailing slash ({@code ""} for the root)
     * @throws IllegalArgumentException when it is not a path such as {@code /delayq}
     */
    public static String checkBasePath(String path) {
        String p = path == null ? "" : path.strip();
        while (p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        if (!p.isEmpty() && (!p.matches("(/[A-Za-z0-9._~\\-]+)+") || p.matches(".*/\\.{1,2}(/.*)?"))) {
            throw new IllegalArgumentException("base path is '" + path + "': use a path such as /delayq (letters, "
                    + "digits, '.', '_', '~', '-' between slashes), or / for the root");
        }
        return p;
    }

    /** A page refresh interval: 100 ms to 1 h. */
    private static void checkPort(int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port is " + port + ": it must be 0 to 65535 (0 = any free port)");
        }
    }

    private static String checkBind(String address) {
        if (address == null || address.isBlank()) {
            throw new IllegalArgumentException("bind is empty: give an address such as 127.0.0.1 or 0.0.0.0");
        }
        return address.strip();
    }

    private static void checkToken(String token) {
        Tokens.check(token);
    }

    private static void checkExposure(String bind, String token) {
        if (token == null && !isLoopback(bind)) {
            throw new IllegalArgumentException("bind " + bind + " is not a loopback address: anyone who can reach it "
                    + "could change jobs, so give a token (--token or DELAYQ_DASHBOARD_TOKEN), or bind 127.0.0.1");
        }
    }

    private static boolean isLoopback(String address) {
        try {
            InetAddress[] all = InetAddress.getAllByName(address);
            for (InetAddress a : all) {
                if (!a.isLoopbackAddress()) {
                    return false;
                }
            }
            return all.length > 0;
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("bind " + address + " is not an address of this host: " + e.getMessage());
        }
    }

    /**
     * Starts listening.
     *
     * @return this dashboard
     * @throws IllegalStateException when it was started before
     * @throws UncheckedIOException  when the address cannot be bound (port in use, address not on this host)
     */
    public synchronized Dashboard start() {
        if (app != null) {
            throw new IllegalStateException("the dashboard is already started");
        }
        Api api = new Api(() -> dq, access, outbox);
        Javalin javalin = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            config.jetty.host = bind;
            config.jetty.port = requestedPort;
            QueuedThreadPool pool = new QueuedThreadPool(32, 2);
            pool.setName("delayq-dashboard");
            config.jetty.threadPool = pool;
            config.http.prefer405over404 = true;
            config.http.maxRequestSize = 64 * 1024;
            config.jetty.modifyHttpConfiguration(http -> {
                http.setSendServerVersion(false);
                // A job id may contain '/', '%' or be '..': sent as %2F, %25, %2E%2E inside one path segment, which
                // routing must keep as one segment (nothing is served from the file system, so nothing to traverse).
                http.setUriCompliance(UriCompliance.DEFAULT.with("delayq ids",
                        UriCompliance.Violation.AMBIGUOUS_PATH_SEPARATOR, UriCompliance.Violation.AMBIGUOUS_PATH_ENCODING,
                        UriCompliance.Violation.AMBIGUOUS_PATH_SEGMENT));
            });
            config.jetty.modifyServletContextHandler(handler -> handler.getServletHandler().setDecodeAmbiguousURIs(true));
            config.jetty.modifyServer(server -> server.setErrorHandler(new ServerErrors()));
            if (!basePath.isEmpty()) {
                config.router.contextPath = basePath;
            }
            config.routes.before(ctx -> {
                if (trustForwarded) {
                    // Read once per request; a malformed header is a 400 (answered without the attribute).
                    ctx.attribute(Forwarded.ATTRIBUTE, Forwarded.of(ctx::header, ctx.scheme(), ctx.header("Host"), ctx.ip()));
                }
                access.check(new JavalinExchange(ctx));
            });
            Routes routes = new Routes();
            Pages.routes(routes, access, refresh);
            api.routes(routes);
            routes.get("/metrics", x -> {
                meters.refresh();
                x.respond(200, "text/plain; version=0.0.4; charset=utf-8",
                        registry.scrape().getBytes(StandardCharsets.UTF_8));
            });
            JavalinExchange.register(config.routes, routes);
        });
        try {
            javalin.start();
        } catch (RuntimeException e) {
            javalin.stop();
            throw bindFailure(e);
        }
        app = javalin;
        return this;
    }

    private UncheckedIOException bindFailure(RuntimeException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BindException be) {
                return new UncheckedIOException("cannot listen on " + bind + ":" + requestedPort + ": "
                        + be.getMessage() + " (is the port in use? choose another one)", be);
            }
        }
        throw e;
    }

    /** The port listened on (the one chosen by the system when built with port 0). */
    public synchronized int port() {
        if (app == null) {
            throw new IllegalStateException("the dashboard is not started");
        }
        return app.port();
    }

    /** The address listened on, as given to the builder. */
    public String bind() {
        return bind;
    }

    /**
     * The dashboard's address, {@code http://<bind>:<port>/} (an IPv6 address in brackets), with the
     * {@link Builder#basePath} when there is one ({@code http://127.0.0.1:8080/delayq/}).
     */
    public String url() {
        String host = bind.contains(":") ? "[" + bind + "]" : bind;
        return "http://" + host + ":" + port() + basePath + "/";
    }

    /** Stops listening; requests in progress are finished. The client is left open. Idempotent. */
    @Override
    public synchronized void close() {
        if (app != null) {
            app.stop();
            app = null;
        }
        meters.close();
        if (ownRegistry) {
            registry.close();
        }
    }

    /** Builder of a {@link Dashboard}; {@link #build()} checks the settings together. */
    public static final class Builder {
        private final DelayQ dq;
        private int port = DEFAULT_PORT;
        private String bind = DEFAULT_BIND;
        private String token;
        private boolean readOnly;
        private PrometheusMeterRegistry registry;
        private Supplier<? extends Map<String, ?>> outbox;
        private boolean trustForwarded;
        private String basePath = "";
        private int metricsQueueLimit = QueueMeters.DEFAULT_MAX_QUEUES;
        private int metricsGroupLimit = QueueMeters.DEFAULT_MAX_GROUPS;
        private Duration refresh = DEFAULT_REFRESH;

        private Builder(DelayQ dq) {
            this.dq = dq;
        }

        /** The port (default 8080; 0 = any free port, see {@link Dashboard#port()}). */
        public Builder port(int port) {
            checkPort(port);
            this.port = port;
            return this;
        }

        /**
         * The address to listen on (default 127.0.0.1). Any address that is not loopback needs a {@link #token}.
         */
        public Builder bind(String address) {
            this.bind = checkBind(address);
            return this;
        }

        /**
         * The token every request must carry (as {@code Authorization: Bearer <token>} or through the login page);
         * {@code null} for none. At least 16 characters, printable ASCII, e.g. from {@code openssl rand -hex 16}.
         */
        public Builder token(String token) {
            checkToken(token);
            this.token = token;
            return this;
        }

        /** Refuse every change (403): the dashboard only shows (default false). */
        public Builder readOnly(boolean readOnly) {
            this.readOnly = readOnly;
            return this;
        }

        /**
         * A registry whose meters {@code /metrics} serves besides the queue gauges (e.g. the worker meters of the
         * same application); by default the dashboard has its own. The dashboard adds its gauges to it.
         */
        public Builder registry(PrometheusMeterRegistry registry) {
            this.registry = registry;
            return this;
        }

        /**
         * The status of the application's transactional outbox (delayq-outbox), read at every {@code /api/server}:
         * the JSON gains an {@code outbox} block with what it returns (e.g. {@code pending}, {@code oldestPendingAge},
         * {@code relay}), and the overview page shows the pending rows. {@code null} (the default): no block.
         */
        public Builder outbox(Supplier<? extends Map<String, ?>> status) {
            this.outbox = status;
            return this;
        }

        /**
         * Whether a reverse proxy in front of the dashboard says where the browser's request went, and the dashboard
         * believes it (default false): {@code X-Forwarded-Proto} (https: the session cookie gets {@code Secure} and
         * the same-origin check expects {@code https://} origins), {@code X-Forwarded-Host} (the host name and port the
         * browser used), {@code X-Forwarded-Prefix} (the path the proxy strips: links, redirects and the cookie's path
         * start with it) and {@code X-Forwarded-For} (its last entry is the client address the login throttle counts).
         * Turn it on only when every request comes through such a proxy and it replaces whatever Proto, Host and
         * Prefix a client sent (nginx: {@code proxy_set_header}): otherwise a client chooses them.
         */
        public Builder trustForwardedHeaders(boolean trust) {
            this.trustForwarded = trust;
            return this;
        }

        /**
         * The most queues {@code /metrics} gives a {@code queue} label of their own (default 500): unreadable ones
         * first, then those with the largest backlog; the others are added up under {@code queue="(other)"}, so that
         * thousands of queues do not become tens of thousands of series.
         *
         * @throws IllegalArgumentException when it is not 1 to 100,000
         */
        public Builder metricsQueueLimit(int queues) {
            if (queues < 1 || queues > 100_000) {
                throw new IllegalArgumentException("metrics queue limit is " + queues + ": it must be 1 to 100000");
            }
            this.metricsQueueLimit = queues;
            return this;
        }

        /**
         * The most groups ({@code Job.group}, docs/groups.md) of each queue that {@code /metrics} gives a {@code group}
         * label of their own in {@code delayq_group_jobs{queue, group, state}} (default 20): those with the largest
         * backlogs; the others of the queue are added up under {@code group="(other)"}. Only queues with groups are
         * read for it (one {@code group_stats.lua} call per partition and scrape).
         *
         * @throws IllegalArgumentException when it is not 1 to 1,000
         */
        public Builder metricsGroupLimit(int groups) {
            if (groups < 1 || groups > 1000) {
                throw new IllegalArgumentException("metrics group limit is " + groups + ": it must be 1 to 1000");
            }
            this.metricsGroupLimit = groups;
            return this;
        }

        /**
         * How often the pages read the API again while they are shown (default 5 s): 100 ms to 1 h. A short one costs
         * Redis a page's reads that often per open page.
         *
         * @throws IllegalArgumentException when it is outside 100 ms to 1 h
         */
        public Builder refresh(Duration interval) {
            this.refresh = Pages.checkRefresh(interval);
            return this;
        }

        /**
         * The path the dashboard is served under on its own server, for a proxy that passes its prefix on instead of
         * stripping it: {@code /delayq} serves {@code /delayq/}, {@code /delayq/api/...} (default: the root).
         *
         * @throws IllegalArgumentException when it is not a path such as {@code /delayq} (letters, digits, '.', '_',
         *                                  '~', '-' between slashes)
         */
        public Builder basePath(String path) {
            this.basePath = checkBasePath(path);
            return this;
        }

        /**
         * Checks the settings together.
         *
         * @throws IllegalArgumentException when the address is not loopback and there is no token, or the address is
         *                                  unknown
         */
        public Dashboard build() {
            checkExposure(bind, token);
            return new Dashboard(this);
        }
    }
}
