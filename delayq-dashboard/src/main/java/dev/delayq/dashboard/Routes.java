package dev.delayq.dashboard;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The dashboard's routes: method, path pattern ({@code /api/queues/{queue}}) and handler, in one list that each
 * server adapter registers (Javalin routes them itself, {@link DashboardServlet} through {@link #match}).
 */
final class Routes {
    /** What a route does with one request; throws {@link ApiException} (or any exception) to refuse it. */
    @FunctionalInterface
    interface Handler {
        void handle(Exchange x) throws Exception;
    }

    /** One route. */
    record Route(String method, String pattern, Handler handler) {
    }

    /** A route matched with its path parameters (decoded); {@code route} is null for 404 and 405. */
    record Match(Route route, Map<String, String> params, int status) {
    }

    private final List<Route> all = new ArrayList<>();

    Routes get(String pattern, Handler h) {
        return add("GET", pattern, h);
    }

    Routes post(String pattern, Handler h) {
        return add("POST", pattern, h);
    }

    Routes delete(String pattern, Handler h) {
        return add("DELETE", pattern, h);
    }

    private Routes add(String method, String pattern, Handler h) {
        all.add(new Route(method, pattern, h));
        return this;
    }

    List<Route> all() {
        return List.copyOf(all);
    }

    /**
     * The route for {@code method} (HEAD as GET) and the raw {@code path}: each segment is decoded after the path is
     * split, so an id sent as {@code a%2Fb} stays one segment. Status 404 when no pattern matches the path, 405 when
     * one does for another method.
     */
    Match match(String method, String path) {
        String m = method.equals("HEAD") ? "GET" : method;
        // Trailing slashes are ignored, as Javalin does: /queues/q/ is /queues/q.
        String p = path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        String[] segments = split(p);
        boolean pathMatched = false;
        for (Route r : all) {
            Map<String, String> params = matchPath(split(r.pattern()), segments);
            if (params == null) {
                continue;
            }
            if (r.method().equals(m)) {
                return new Match(r, params, 200);
            }
            pathMatched = true;
        }
        return new Match(null, Map.of(), pathMatched ? 405 : 404);
    }

    private static String[] split(String path) {
        String p = path.startsWith("/") ? path.substring(1) : path;
        return p.isEmpty() ? new String[0] : p.split("/", -1);
    }

    private static Map<String, String> matchPath(String[] pattern, String[] segments) {
        if (pattern.length != segments.length) {
            return null;
        }
        Map<String, String> params = new HashMap<>();
        for (int i = 0; i < pattern.length; i++) {
            String p = pattern[i];
            if (p.startsWith("{") && p.endsWith("}")) {
                String value = decode(segments[i]);
                if (value == null || value.isEmpty()) {
                    return null;
                }
                params.put(p.substring(1, p.length() - 1), value);
            } else if (!p.equals(segments[i])) {
                return null;
            }
        }
        return params;
    }

    /** Percent-decodes one path segment ('+' stays '+'); null when the escapes are malformed. */
    static String decode(String segment) {
        if (segment.indexOf('%') < 0) {
            return segment;
        }
        try {
            return java.net.URLDecoder.decode(segment.replace("+", "%2B"), java.nio.charset.StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
