package dev.delayq.dashboard;

import dev.delayq.DelayQ;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The dashboard's pages and JSON API as a servlet, for an application's own web server (Tomcat, Jetty, Undertow): no
 * second server, no Javalin, no Jetty of its own. Map it at a path with a wildcard, e.g. {@code /delayq/*}; it serves
 * the same pages and API as the standalone {@link Dashboard} (not {@code /metrics}: an application has its own), its
 * links relative to where it is mounted.
 *
 * <pre>{@code
 * DashboardServlet servlet = DashboardServlet.builder(dq).token(System.getenv("DELAYQ_DASHBOARD_TOKEN")).build();
 * // register it at /delayq/* (the Spring Boot starter does so with delayq.dashboard.enabled=true)
 * }</pre>
 *
 * <p>Who may use it: either the application authenticates every request before it reaches the servlet
 * ({@link Builder#authenticatedByApplication}, e.g. Spring Security, whose CSRF protection then applies), or the
 * dashboard's token does as on the standalone server (Bearer header or the login page's session cookie, same-origin
 * mutations). One of the two is required: an application's server is not a loopback-only one.
 */
public final class DashboardServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private final transient Access access;
    private final transient Routes routes = new Routes();

    private DashboardServlet(Builder b) {
        this.access = Access.inApplication(b.token, b.readOnly);
        Pages.routes(routes, access, b.refresh);
        new Api(b.dq, access, b.outbox).routes(routes);
    }

    /**
     * A builder for a dashboard servlet of {@code dq}.
     *
     * @throws NullPointerException when {@code dq} is null
     */
    public static Builder builder(DelayQ dq) {
        Objects.requireNonNull(dq, "dq");
        return new Builder(() -> dq);
    }

    /**
     * A builder for a dashboard servlet whose client is looked up on every request, for an application that may
     * connect to Redis after it has started: while {@code client} throws
     * {@link dev.delayq.DelayQConnectionException}, the API answers 503 with its message.
     *
     * @throws NullPointerException when {@code client} is null
     */
    public static Builder builder(Supplier<? extends DelayQ> client) {
        return new Builder(Objects.requireNonNull(client, "client"));
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse res) throws IOException {
        String base = req.getContextPath() + req.getServletPath();
        String uri = req.getRequestURI();
        if (!uri.startsWith(base)) {
            // The mount path arrived escaped (/%64elayq): refuse rather than guess where the dashboard's path starts.
            res.sendError(404);
            return;
        }
        String path = uri.substring(base.length());
        if (path.isEmpty()) {
            res.setStatus(303);
            res.setHeader("Location", base + "/");
            return;
        }
        ServletExchange x = new ServletExchange(req, res, base, path);
        try {
            access.check(x);
            Routes.Match m = routes.match(x.method(), path);
            switch (m.status()) {
                case 404 -> Errors.notFound(x);
                case 405 -> Errors.methodNotAllowed(x);
                default -> {
                    x.params(m.params());
                    m.route().handler().handle(x);
                }
            }
        } catch (Exception e) {
            Errors.respond(x, e);
        }
    }

    /** Builder of a {@link DashboardServlet}; {@link #build()} checks the settings together. */
    public static final class Builder {
        private final Supplier<? extends DelayQ> dq;
        private String token;
        private boolean readOnly;
        private boolean authenticatedByApplication;
        private Supplier<? extends java.util.Map<String, ?>> outbox;
        private java.time.Duration refresh = Pages.DEFAULT_REFRESH; // Dashboard's class needs Prometheus

        private Builder(Supplier<? extends DelayQ> dq) {
            this.dq = dq;
        }

        /**
         * The token every request must carry (as {@code Authorization: Bearer <token>} or through the login page):
         * at least 16 printable ASCII characters; {@code null} for none (then the application must authenticate).
         *
         * @throws IllegalArgumentException when the token is too short or has other characters
         */
        public Builder token(String token) {
            Tokens.check(token);
            this.token = token;
            return this;
        }

        /**
         * The status of the application's transactional outbox, read at every {@code /api/server}: the overview shows
         * its pending rows (as {@code Dashboard.Builder.outbox}); null: no outbox block (default).
         */
        public Builder outbox(Supplier<? extends java.util.Map<String, ?>> status) {
            this.outbox = status;
            return this;
        }

        /**
         * How often the pages read the API again while they are shown (default 5 s), as {@code Dashboard.Builder.refresh}.
         *
         * @throws IllegalArgumentException when it is outside 100 ms to 1 h
         */
        public Builder refresh(java.time.Duration interval) {
            this.refresh = Pages.checkRefresh(interval);
            return this;
        }

        /** Refuse every change (403): the dashboard only shows (default false). */
        public Builder readOnly(boolean readOnly) {
            this.readOnly = readOnly;
            return this;
        }

        /**
         * Whether the application authenticates and authorizes every request to the servlet itself (e.g. a Spring
         * Security filter chain requiring a role) and protects changes against CSRF as it does its own; then the
         * dashboard has no token of its own (default false).
         */
        public Builder authenticatedByApplication(boolean yes) {
            this.authenticatedByApplication = yes;
            return this;
        }

        /**
         * Checks the settings together.
         *
         * @throws IllegalArgumentException when there is neither a token nor the application's authentication, or both
         */
        public DashboardServlet build() {
            if (token == null && !authenticatedByApplication) {
                throw new IllegalArgumentException("the dashboard inside an application needs a token (at least "
                        + Dashboard.MIN_TOKEN_LENGTH + " characters, e.g. from 'openssl rand -hex 16') or the "
                        + "application's own authentication (e.g. Spring Security): anyone who can reach the "
                        + "application could change jobs");
            }
            if (token != null && authenticatedByApplication) {
                throw new IllegalArgumentException("the dashboard has a token and the application's authentication: "
                        + "give one of the two (with Spring Security the token is not used)");
            }
            return new DashboardServlet(this);
        }
    }
}
