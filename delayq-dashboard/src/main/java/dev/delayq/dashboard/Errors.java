package dev.delayq.dashboard;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.delayq.DelayQConnectionException;
import dev.delayq.DelayQTimeoutException;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns every refusal and failure into a response: {@code {"error": "..."}} with a fitting status for the API and
 * {@code /metrics}; the login page for a page that needs the token.
 */
final class Errors {
    private static final Logger LOG = LoggerFactory.getLogger(Errors.class);
    static final ObjectMapper MAPPER = new ObjectMapper();

    private Errors() {
    }

    static void handlers(RoutesConfig routes, Access access) {
        routes.exception(ApiException.class, (e, ctx) -> {
            if (e.status() == 401 && isPage(ctx)) {
                Pages.login(ctx, 401, "");
            } else {
                error(ctx, e.status(), e.getMessage());
            }
        });
        routes.exception(IllegalArgumentException.class, (e, ctx) -> error(ctx, 400, e.getMessage()));
        routes.exception(DelayQConnectionException.class,
                (e, ctx) -> error(ctx, 503, "Redis is unreachable: " + e.getMessage()));
        routes.exception(DelayQTimeoutException.class,
                (e, ctx) -> error(ctx, 503, "Redis did not answer in time: " + e.getMessage()));
        routes.exception(Exception.class, (e, ctx) -> {
            LOG.warn("dashboard: {} {} failed", ctx.method(), ctx.path(), e);
            error(ctx, 500, "internal error: " + (e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName()));
        });
        // Javalin answers unmatched routes in plain text: say it in JSON like every other error (ours are JSON already).
        routes.error(404, ctx -> {
            if (!isJson(ctx)) {
                error(ctx, 404, "no such page: " + ctx.method() + " " + ctx.path());
            }
        });
        routes.error(405, ctx -> {
            if (!isJson(ctx)) {
                error(ctx, 405, ctx.method() + " is not allowed here: changes are POST or DELETE, reads are GET");
            }
        });
    }

    private static boolean isJson(Context ctx) {
        String type = ctx.res().getContentType();
        return type != null && type.startsWith("application/json");
    }

    /** Whether the request is for a page (the browser should see the login form) rather than for data. */
    private static boolean isPage(Context ctx) {
        String path = ctx.path();
        return !path.startsWith("/api/") && !path.equals("/metrics") && !path.startsWith("/assets/");
    }

    static void error(Context ctx, int status, String message) {
        ctx.status(status).contentType("application/json").result(json(Map.of("error", message)));
    }

    static String json(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
