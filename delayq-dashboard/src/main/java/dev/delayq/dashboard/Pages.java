package dev.delayq.dashboard;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The pages: one shell page for the overview, queue and job pages (the script renders them from the API), the login
 * page, and the static files (script, style sheets, the uPlot charting library from its webjar). All are read from
 * the class path once; nothing in them depends on Redis. The one value put in them is where the dashboard is mounted
 * ({@link Exchange#base()}, from the application's configuration), escaped, so links work under {@code /delayq} too.
 */
final class Pages {
    private static final String UPLOT = "/META-INF/resources/webjars/uplot/1.6.30/dist/";
    private static final String OWN = "/dev/delayq/dashboard/static/";
    /** Where the pages say where the dashboard is mounted (links, forms, the script's requests start with it). */
    private static final String BASE_SLOT = "{{base}}";
    /** Where the shell page says how often the pages refresh, in milliseconds ({@code Dashboard.Builder.refresh}). */
    private static final String REFRESH_SLOT = "{{refresh}}";
    /** Where the login page shows a message (only fixed texts are put there). */
    private static final String MESSAGE_SLOT = "<!--message-->";

    /** The static files by name under {@code /assets/}, with their content type. */
    private static final Map<String, Asset> ASSETS = Map.of(
            "app.js", Asset.load(OWN + "app.js", "text/javascript; charset=utf-8"),
            "app.css", Asset.load(OWN + "app.css", "text/css; charset=utf-8"),
            "login.css", Asset.load(OWN + "login.css", "text/css; charset=utf-8"),
            "uPlot.iife.min.js", Asset.load(UPLOT + "uPlot.iife.min.js", "text/javascript; charset=utf-8"),
            "uPlot.min.css", Asset.load(UPLOT + "uPlot.min.css", "text/css; charset=utf-8"));
    private static final String SHELL = Asset.load(OWN + "app.html", "").text();
    private static final String LOGIN = Asset.load(OWN + "login.html", "").text();

    /** How often the pages read the API again by default (Dashboard and DashboardServlet: no Prometheus class here). */
    static final java.time.Duration DEFAULT_REFRESH = java.time.Duration.ofSeconds(5);

    /** {@code interval} when it is 100 ms to 1 h. */
    static java.time.Duration checkRefresh(java.time.Duration interval) {
        if (interval == null || interval.compareTo(java.time.Duration.ofMillis(100)) < 0
                || interval.compareTo(java.time.Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException("refresh interval is " + interval + ": it must be 100 ms to 1 h");
        }
        return interval;
    }

    private Pages() {
    }

    static void routes(Routes routes, Access access, java.time.Duration refresh) {
        String shell = SHELL.replace(REFRESH_SLOT, Long.toString(refresh.toMillis()));
        Routes.Handler page = ctx -> html(ctx, 200, shell);
        routes.get("/", page);
        routes.get("/queues/{queue}", page);
        routes.get("/queues/{queue}/jobs/{id}", page);
        routes.get("/workers", page);
        routes.get("/queues/{queue}/schedules", page);
        routes.get("/assets/{name}", ctx -> {
            Asset a = ASSETS.get(ctx.pathParam("name"));
            if (a == null) {
                throw ApiException.notFound("no such file: " + ctx.pathParam("name"));
            }
            // The files change only with the jar: a browser may keep them, but asks again on every page load.
            ctx.header("Cache-Control", "no-cache");
            ctx.respond(200, a.type(), a.bytes());
        });
        routes.get("/login", ctx -> {
            if (!access.tokenRequired()) {
                ctx.redirect("/");
                return;
            }
            login(ctx, 200, "");
        });
        routes.post("/login", ctx -> {
            if (!access.tokenRequired()) {
                ctx.redirect("/");
                return;
            }
            String address = ctx.remoteAddress();
            long wait = access.throttle().attempt(address);
            if (wait > 0) {
                ctx.header("Retry-After", Long.toString(wait));
                login(ctx, 429, "<p class=\"error\" role=\"alert\">Too many wrong tokens: wait a while, then try again.</p>");
                return;
            }
            if (!access.tokenMatches(ctx.formParam("token"))) {
                access.throttle().failed(address);
                login(ctx, 401, "<p class=\"error\" role=\"alert\">That token is not right.</p>");
                return;
            }
            access.throttle().succeeded(address);
            String session = access.sessions().create();
            ctx.header("Set-Cookie", Access.cookieName(ctx) + "=" + session + "; Path=" + cookiePath(ctx) + "; Max-Age=" + Sessions.TTL_SECONDS
                    + "; HttpOnly; SameSite=Strict" + secure(ctx));
            ctx.redirect("/");
        });
        routes.post("/logout", ctx -> {
            access.sessions().remove(ctx.cookie(Access.cookieName(ctx)));
            ctx.header("Set-Cookie", Access.cookieName(ctx) + "=; Path=" + cookiePath(ctx) + "; Max-Age=0; HttpOnly; SameSite=Strict"
                    + secure(ctx));
            ctx.redirect(access.tokenRequired() ? "/login" : "/");
        });
    }

    /** The login page with a status and a fixed message (never text from the request or from Redis). */
    static void login(Exchange ctx, int status, String fixedMessage) {
        html(ctx, status, LOGIN.replace(MESSAGE_SLOT, fixedMessage));
    }

    private static void html(Exchange ctx, int status, String page) {
        String html = page.replace(BASE_SLOT, escape(ctx.base()));
        ctx.respond(status, "text/html; charset=utf-8", html.getBytes(StandardCharsets.UTF_8));
    }

    /** The session cookie's path: the dashboard's own, so it is not sent to the rest of an application. */
    private static String cookiePath(Exchange ctx) {
        return ctx.base().isEmpty() ? "/" : ctx.base();
    }

    /**
     * {@code ; Secure} when the browser reached the dashboard over HTTPS (directly, or through a proxy whose
     * {@code X-Forwarded-Proto} is trusted): the cookie is then never sent over plain HTTP.
     */
    private static String secure(Exchange ctx) {
        return ctx.scheme().equals("https") ? "; Secure" : "";
    }

    /** Escapes text for an HTML attribute value. */
    static String escape(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    /** One static file. */
    private record Asset(byte[] bytes, String type) {
        static Asset load(String resource, String type) {
            try (InputStream in = Pages.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("resource " + resource + " is missing from the class path");
                }
                return new Asset(in.readAllBytes(), type);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        String text() {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }
}
