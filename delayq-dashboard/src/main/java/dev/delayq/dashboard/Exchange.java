package dev.delayq.dashboard;

/**
 * One request and its response, as the dashboard's pages and API see them: the few things they read and write, so
 * that the same handlers run on the standalone server ({@link JavalinExchange}) and inside an application's servlet
 * container ({@link ServletExchange}).
 */
interface Exchange {
    /** The method in upper case: {@code GET}, {@code POST}, ... */
    String method();

    /** The path inside the dashboard, as sent (not decoded): {@code /api/queues}, {@code /} for its root. */
    String path();

    /** A parameter of the matched route, decoded: {@code queue} of {@code /api/queues/{queue}}. */
    String pathParam(String name);

    /** A query parameter, or {@code null}. */
    String queryParam(String name);

    /** A form field of an {@code application/x-www-form-urlencoded} body, or {@code null}. */
    String formParam(String name);

    /** A request header, or {@code null}. */
    String header(String name);

    /** A request cookie's value, or {@code null}. */
    String cookie(String name);

    /** {@code http} or {@code https}. */
    String scheme();

    /**
     * Where the dashboard is mounted: {@code ""} on the standalone server, {@code /delayq} (with the application's
     * context path before it) inside an application. Links, redirects and cookie paths start with it.
     */
    String base();

    /** Sets a response header. */
    void header(String name, String value);

    /** Sends the response: status, content type and body. */
    void respond(int status, String contentType, byte[] body);

    /** Sends a {@code 303 See Other} to {@code path} inside the dashboard ({@code /login}). */
    void redirect(String path);

    /**
     * The client's address, for the login throttle: the peer's, or behind a trusted proxy the one the proxy saw (the
     * last entry of {@code X-Forwarded-For}).
     */
    String remoteAddress();
}
