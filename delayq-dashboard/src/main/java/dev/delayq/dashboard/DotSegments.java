package dev.delayq.dashboard;

/**
 * Queue names and job ids {@code .} and {@code ..} from a browser. Browsers (the WHATWG URL parser) resolve a path
 * segment {@code .} or {@code ..} before sending the request, and so {@code %2E} and {@code %2E%2E} too: no encoding of
 * such a name survives in the path. So the pages put the segment {@link #PLACEHOLDER} in its place and the name in the
 * query ({@code /api/queues/_/jobs/_?queue=..&id=.}); a segment {@code _} without that query parameter is the name
 * {@code _} as ever. Clients that do not resolve dot segments (curl {@code --path-as-is}, java.net.http) may send
 * {@code %2E%2E} in the path as before.
 */
final class DotSegments {
    /** The path segment that stands for the name given in the query. */
    static final String PLACEHOLDER = "_";

    private DotSegments() {
    }

    /** The path parameter {@code name}, or its query parameter when the segment is the placeholder and the query has it. */
    static String param(Exchange ctx, String name) {
        String v = ctx.pathParam(name);
        if (PLACEHOLDER.equals(v)) {
            String q = ctx.queryParam(name);
            if (q != null && (q.equals(".") || q.equals(".."))) {
                return q;
            }
        }
        return v;
    }
}
