package dev.delayq.dashboard;

import dev.delayq.DelayQConnectionException;
import dev.delayq.DelayQTimeoutException;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HttpStatus;

/** An {@link Exchange} on the standalone server: a Javalin {@link Context}, the dashboard at the root. */
final class JavalinExchange implements Exchange {
    private final Context ctx;

    JavalinExchange(Context ctx) {
        this.ctx = ctx;
    }

    /** Registers every route of {@code routes} with Javalin, and the dashboard's answers to errors. */
    static void register(RoutesConfig javalin, Routes routes) {
        for (Routes.Route r : routes.all()) {
            Handler h = ctx -> r.handler().handle(new JavalinExchange(ctx));
            switch (r.method()) {
                case "GET" -> javalin.get(r.pattern(), h);
                case "POST" -> javalin.post(r.pattern(), h);
                case "DELETE" -> javalin.delete(r.pattern(), h);
                default -> throw new IllegalStateException("no Javalin route for " + r.method());
            }
        }
        // The same answers as inside an application (Errors.respond), registered per type as before: Javalin's
        // own HttpResponseExceptions (405, ...) are still answered by Javalin.
        javalin.exception(ApiException.class, (e, ctx) -> Errors.respond(new JavalinExchange(ctx), e));
        javalin.exception(IllegalArgumentException.class,
                (e, ctx) -> Errors.respond(new JavalinExchange(ctx), e));
        javalin.exception(DelayQConnectionException.class,
                (e, ctx) -> Errors.respond(new JavalinExchange(ctx), e));
        javalin.exception(DelayQTimeoutException.class,
                (e, ctx) -> Errors.respond(new JavalinExchange(ctx), e));
        javalin.exception(Exception.class, (e, ctx) -> Errors.respond(new JavalinExchange(ctx), e));
        // Javalin answers unmatched routes in plain text: say it in JSON like every other error (ours are JSON).
        javalin.error(404, ctx -> {
            if (!isJson(ctx)) {
                Errors.notFound(new JavalinExchange(ctx));
            }
        });
        javalin.error(405, ctx -> {
            if (!isJson(ctx)) {
                Errors.methodNotAllowed(new JavalinExchange(ctx));
            }
        });
    }

    private static boolean isJson(Context ctx) {
        String type = ctx.res().getContentType();
        return type != null && type.startsWith("application/json");
    }

    @Override
    public String method() {
        return ctx.method().name();
    }

    @Override
    public String path() {
        String context = contextPath();
        String path = ctx.path();
        return path.startsWith(context) && path.length() > context.length() ? path.substring(context.length())
                : path.equals(context) ? "/" : path;
    }

    /** The server's own mount path ({@link Dashboard.Builder#basePath}), {@code ""} at the root. */
    private String contextPath() {
        String c = ctx.contextPath();
        return c == null || c.equals("/") ? "" : c;
    }

    /** What a trusted proxy says about the request, or null (not behind one, or not trusted). */
    private Forwarded forwarded() {
        return ctx.attribute(Forwarded.ATTRIBUTE);
    }

    @Override
    public String pathParam(String name) {
        return ctx.pathParam(name);
    }

    @Override
    public String queryParam(String name) {
        return ctx.queryParam(name);
    }

    @Override
    public String formParam(String name) {
        return ctx.formParam(name);
    }

    @Override
    public String header(String name) {
        Forwarded f = forwarded();
        return f != null && name.equalsIgnoreCase("Host") ? f.host() : ctx.header(name);
    }

    @Override
    public String cookie(String name) {
        return ctx.cookie(name);
    }

    @Override
    public String scheme() {
        Forwarded f = forwarded();
        return f != null ? f.scheme() : ctx.scheme();
    }

    /** The proxy's prefix (when trusted) and the server's own mount path: {@code ""} when neither. */
    @Override
    public String base() {
        Forwarded f = forwarded();
        return (f != null ? f.prefix() : "") + contextPath();
    }

    @Override
    public void header(String name, String value) {
        ctx.header(name, value);
    }

    @Override
    public void respond(int status, String contentType, byte[] body) {
        ctx.status(status).contentType(contentType).result(body);
    }

    @Override
    public void redirect(String path) {
        ctx.redirect(base() + path, HttpStatus.SEE_OTHER);
    }

    @Override
    public String remoteAddress() {
        Forwarded f = forwarded();
        return f != null ? f.remoteAddress() : ctx.ip();
    }
}
