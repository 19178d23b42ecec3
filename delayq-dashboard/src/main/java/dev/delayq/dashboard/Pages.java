package dev.delayq.dashboard;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The pages: one shell page for the overview, queue and job pages (the script renders them from the API), the login
 * page, and the static files (script, style sheets, the uPlot charting library from its webjar). All are read from
 * the class path once; nothing in them depends on Redis, so they contain no data to escape.
 */
final class Pages {
    private static final String UPLOT = "/META-INF/resources/webjars/uplot/1.6.30/dist/";
    private static final String OWN = "/dev/delayq/dashboard/static/";
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

    private Pages() {
    }

    static void routes(RoutesConfig routes, Access access) {
        routes.get("/", Pages::shell);
        routes.get("/queues/{queue}", Pages::shell);
        routes.get("/queues/{queue}/jobs/{id}", Pages::shell);
        routes.get("/assets/{name}", ctx -> {
            Asset a = ASSETS.get(ctx.pathParam("name"));
            if (a == null) {
                throw ApiException.notFound("no such file: " + ctx.pathParam("name"));
            }
            // The files change only with the jar: a browser may keep them, but asks again on every page load.
            ctx.header("Cache-Control", "no-cache").contentType(a.type()).result(a.bytes());
        });
        routes.get("/login", ctx -> {
            if (!access.tokenRequired()) {
                ctx.redirect("/", HttpStatus.SEE_OTHER);
                return;
            }
            login(ctx, 200, "");
        });
        routes.post("/login", ctx -> {
            if (!access.tokenRequired()) {
                ctx.redirect("/", HttpStatus.SEE_OTHER);
                return;
            }
            if (!access.tokenMatches(ctx.formParam("token"))) {
                login(ctx, 401, "<p class=\"error\" role=\"alert\">That token is not right.</p>");
                return;
            }
            String session = access.sessions().create();
            ctx.header("Set-Cookie", Access.COOKIE + "=" + session + "; Path=/; Max-Age=" + Sessions.TTL_SECONDS
                    + "; HttpOnly; SameSite=Strict" + (ctx.scheme().equals("https") ? "; Secure" : ""));
            ctx.redirect("/", HttpStatus.SEE_OTHER);
        });
        routes.post("/logout", ctx -> {
            access.sessions().remove(ctx.cookie(Access.COOKIE));
            ctx.header("Set-Cookie", Access.COOKIE + "=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict");
            ctx.redirect(access.tokenRequired() ? "/login" : "/", HttpStatus.SEE_OTHER);
        });
    }

    private static void shell(Context ctx) {
        ctx.html(SHELL);
    }

    /** The login page with a status and a fixed message (never text from the request or from Redis). */
    static void login(Context ctx, int status, String fixedMessage) {
        ctx.status(status).html(LOGIN.replace(MESSAGE_SLOT, fixedMessage));
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
