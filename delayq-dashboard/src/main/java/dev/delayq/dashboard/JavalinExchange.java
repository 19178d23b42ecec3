package dev.delayq.dashboard;

import io.javalin.http.Context;
import io.javalin.http.HttpStatus;

/** An {@link Exchange} on the standalone server: a Javalin {@link Context}, the dashboard at the root. */
final class JavalinExchange implements Exchange {
    private final Context ctx;

    JavalinExchange(Context ctx) {
        this.ctx = ctx;
    }

    @Override
    public String method() {
        return ctx.method().name();
    }

    @Override
    public String path() {
        return ctx.path();
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
        return ctx.header(name);
    }

    @Override
    public String cookie(String name) {
        return ctx.cookie(name);
    }

    @Override
    public String scheme() {
        return ctx.scheme();
    }

    @Override
    public String base() {
        return "";
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
        ctx.redirect(path, HttpStatus.SEE_OTHER);
    }
}
