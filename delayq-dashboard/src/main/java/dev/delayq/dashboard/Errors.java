package dev.delayq.dashboard;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.delayq.DelayQConnectionException;
import dev.delayq.DelayQTimeoutException;
import java.nio.charset.StandardCharsets;
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

    /** The response to a failure of a handler (or of {@link Access#check}), whichever server runs it. */
    static void respond(Exchange x, Exception e) {
        if (e instanceof ApiException a) {
            if (a.status() == 401 && isPage(x)) {
                Pages.login(x, 401, "");
            } else {
                error(x, a.status(), a.getMessage());
            }
        } else if (e instanceof IllegalArgumentException) {
            error(x, 400, e.getMessage());
        } else if (e instanceof DelayQConnectionException) {
            error(x, 503, "Redis is unreachable: " + e.getMessage());
        } else if (e instanceof DelayQTimeoutException) {
            error(x, 503, "Redis did not answer in time: " + e.getMessage());
        } else {
            LOG.warn("dashboard: {} {} failed", x.method(), x.path(), e);
            error(x, 500, "internal error: " + (e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName()));
        }
    }

    /** The answer to a path no route has: JSON like every other error. */
    static void notFound(Exchange x) {
        error(x, 404, "no such page: " + x.method() + " " + x.path());
    }

    /** The answer to a method the path has no route for. */
    static void methodNotAllowed(Exchange x) {
        error(x, 405, x.method() + " is not allowed here: changes are POST or DELETE, reads are GET");
    }

    /** Whether the request is for a page (the browser should see the login form) rather than for data. */
    private static boolean isPage(Exchange x) {
        String path = x.path();
        return !path.startsWith("/api/") && !path.equals("/metrics") && !path.startsWith("/assets/");
    }

    static void error(Exchange x, int status, String message) {
        x.respond(status, "application/json", json(Map.of("error", message)).getBytes(StandardCharsets.UTF_8));
    }

    static String json(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
