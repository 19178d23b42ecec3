package dev.delayq.dashboard;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;
import java.util.Set;

/**
 * Who may do what, checked before every request: the token (Bearer header or session cookie), the host name (DNS
 * rebinding, when there is no token), same-origin mutations (CSRF) and read-only mode. Also sets the security
 * headers of every response.
 *
 * <p>Inside an application ({@link DashboardServlet}) the host check is off (the application's server is not a
 * loopback-only one, so a token is required there); when the application authenticates every request itself
 * (Spring Security), there is no token and the same-origin check is left to the application's CSRF protection.
 */
final class Access {
    static final String COOKIE = "delayq_session";
    /** Scripts and styles from the dashboard itself only: no inline script, no eval, nothing from elsewhere. */
    static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
    /** Paths a browser must reach before it has logged in. */
    private static final Set<String> OPEN = Set.of("/login", "/assets/login.css");

    private final byte[] tokenHash;
    private final boolean readOnly;
    /** The host names accepted without a token; null: no host check. */
    private final Set<String> hosts;
    private final boolean sameOriginCheck;
    private final Sessions sessions = new Sessions();
    private final LoginThrottle throttle = new LoginThrottle();

    /** The standalone server's rules, listening on {@code bind}. */
    Access(String token, boolean readOnly, String bind) {
        this(token, readOnly, loopbackNames(bind), true);
    }

    private Access(String token, boolean readOnly, Set<String> hosts, boolean sameOriginCheck) {
        this.tokenHash = token != null ? sha256(token) : null;
        this.readOnly = readOnly;
        this.hosts = hosts;
        this.sameOriginCheck = sameOriginCheck;
    }

    /**
     * The rules inside an application: with {@code token} (not null) as on the standalone server but for the host
     * check; with {@code token} null the application has authenticated the request and checked CSRF already.
     */
    static Access inApplication(String token, boolean readOnly) {
        return new Access(token, readOnly, null, token != null);
    }

    private static Set<String> loopbackNames(String bind) {
        String b = bind.toLowerCase(Locale.ROOT);
        Set<String> names = new java.util.HashSet<>(Set.of("localhost", "127.0.0.1", "[::1]"));
        names.add(b.contains(":") ? "[" + b + "]" : b);
        return Set.copyOf(names);
    }

    /** Whether a token is required. */
    boolean tokenRequired() {
        return tokenHash != null;
    }

    /** Whether every mutation is refused. */
    boolean readOnly() {
        return readOnly;
    }

    Sessions sessions() {
        return sessions;
    }

    /**
     * The headers every answer carries, the dashboard's own and the server's error pages alike (a 400 for a bad URI
     * that never reaches a route).
     */
    static void securityHeaders(java.util.function.BiConsumer<String, String> header) {
        header.accept("Content-Security-Policy", CSP);
        header.accept("X-Content-Type-Options", "nosniff");
        header.accept("X-Frame-Options", "DENY");
        // Not no-referrer: under it a browser sends 'Origin: null' with its own POSTs, which the CSRF check must refuse.
        header.accept("Referrer-Policy", "same-origin");
        header.accept("Cross-Origin-Opener-Policy", "same-origin");
        header.accept("Cross-Origin-Resource-Policy", "same-origin");
        header.accept("Cache-Control", "no-store");
    }

    /** Runs before every request; throws {@link ApiException} (401, 403) to refuse it. */
    void check(Exchange ctx) {
        securityHeaders(ctx::header);
        String path = ctx.path();
        if (tokenHash == null && hosts != null) {
            checkHost(ctx);
        }
        if (!OPEN.contains(path) && !authenticated(ctx)) {
            ctx.header("WWW-Authenticate", "Bearer realm=\"delayq\"");
            throw new ApiException(401, ctx.header("Authorization") != null || ctx.cookie(cookieName(ctx)) != null
                    ? "the token or session is not valid: log in again, or send 'Authorization: Bearer <token>'"
                    : "a token is required: log in at /login, or send 'Authorization: Bearer <token>'");
        }
        if (isMutation(ctx.method())) {
            if (sameOriginCheck) {
                checkSameOrigin(ctx);
            }
            if (readOnly && !path.equals("/login") && !path.equals("/logout")) {
                throw new ApiException(403, "the dashboard is read-only: changes are refused");
            }
        }
    }

    /** Whether {@code given} is the token (compared in constant time). */
    boolean tokenMatches(String given) {
        return tokenHash != null && given != null && MessageDigest.isEqual(tokenHash, sha256(given));
    }

    private boolean authenticated(Exchange ctx) {
        if (tokenHash == null) {
            return true;
        }
        String auth = ctx.header("Authorization");
        if (auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return bearerMatches(ctx, auth.substring(7).strip());
        }
        return sessions.valid(ctx.cookie(cookieName(ctx)));
    }

    /**
     * A Bearer token, counted by the {@link LoginThrottle} like the login page's: a client that guesses tokens waits
     * (429) whichever way it sends them.
     */
    private boolean bearerMatches(Exchange ctx, String given) {
        String address = ctx.remoteAddress();
        refuseWhileThrottled(ctx, address);
        if (tokenMatches(given)) {
            throttle.succeeded(address);
            return true;
        }
        throttle.failed(address);
        return false;
    }

    /** Throws 429 with {@code Retry-After} while the client's address waits after failed logins. */
    void refuseWhileThrottled(Exchange ctx, String address) {
        long wait = throttle.attempt(address);
        if (wait > 0) {
            ctx.header("Retry-After", Long.toString(wait));
            throw new ApiException(429, "too many failed logins from " + address + ": try again in " + wait + " s");
        }
    }

    LoginThrottle throttle() {
        return throttle;
    }

    /**
     * The session cookie's name, one per dashboard: browsers send a host's cookies to every port of it and match
     * names only, so two dashboards on one host (two ports, or two mount paths of one application) would each
     * overwrite the other's session under one name. {@code delayq_session_<port>}, then the mount path's letters and
     * digits ({@code delayq_session_8080_ops_delayq}); over HTTPS with the {@code __Host-} prefix (at the root: the
     * browser then accepts it only with {@code Secure}, {@code Path=/} and no {@code Domain}, so no other host name
     * nor a plain-HTTP page can set or replace it) or {@code __Secure-} (under a mount path).
     */
    static String cookieName(Exchange ctx) {
        boolean secure = "https".equals(ctx.scheme());
        StringBuilder b = new StringBuilder(secure ? ctx.base().isEmpty() ? "__Host-" : "__Secure-" : "");
        b.append(COOKIE).append('_').append(port(ctx.header("Host"), secure));
        if (!ctx.base().isEmpty()) {
            b.append('_');
            for (char c : ctx.base().substring(1).toCharArray()) {
                b.append(c < 128 && Character.isLetterOrDigit(c) ? c : '_');
            }
        }
        return b.toString();
    }

    /** The port in a {@code Host} header, or the scheme's default. */
    private static int port(String host, boolean secure) {
        if (host != null) {
            int colon = host.lastIndexOf(':');
            if (colon > host.lastIndexOf(']')) {
                try {
                    return Integer.parseInt(host.substring(colon + 1).strip());
                } catch (NumberFormatException e) {
                    // the default below
                }
            }
        }
        return secure ? 443 : 80;
    }

    private static boolean isMutation(String method) {
        return !method.equals("GET") && !method.equals("HEAD") && !method.equals("OPTIONS");
    }

    /**
     * Without a token the dashboard trusts whoever reaches the loopback address. A web page can reach it too, through
     * a host name it controls that resolves to 127.0.0.1 (DNS rebinding): only the loopback names are accepted.
     */
    private void checkHost(Exchange ctx) {
        String host = ctx.header("Host");
        if (host == null) {
            return; // HTTP/1.0: no browser sends it
        }
        String name = stripPort(host.strip().toLowerCase(Locale.ROOT));
        if (!hosts.contains(name)) {
            throw new ApiException(403, "host name not accepted without a token: use http://127.0.0.1 or http://localhost");
        }
    }

    /**
     * Mutations from another site are refused: a browser says where a request comes from in {@code Sec-Fetch-Site}
     * (every current browser) and {@code Origin} (every browser on POST and DELETE). Clients that send neither, such
     * as curl, cannot be driven by a web page and pass.
     */
    private static void checkSameOrigin(Exchange ctx) {
        String site = ctx.header("Sec-Fetch-Site");
        if (site != null && !site.equals("same-origin") && !site.equals("none")) {
            throw new ApiException(403, "cross-site request refused (Sec-Fetch-Site: " + site + ")");
        }
        String origin = ctx.header("Origin");
        if (origin != null) {
            String host = ctx.header("Host");
            if (host == null || !sameOrigin(origin, ctx.scheme(), host)) {
                throw new ApiException(403, "cross-origin request refused (Origin: " + origin + ")");
            }
        }
    }

    /**
     * Whether the {@code Origin} is the request's own: the same scheme (the one the dashboard was reached with, e.g. a
     * trusted proxy's {@code X-Forwarded-Proto}) and the same host and port as the {@code Host} header, default ports
     * implied. {@code http://host} is not the origin of {@code https://host}, nor is port 8443 that of 8080.
     */
    static boolean sameOrigin(String origin, String scheme, String host) {
        try {
            URI o = URI.create(origin);
            if (o.getScheme() == null || !o.getScheme().equalsIgnoreCase(scheme)) {
                return false;
            }
            int defaultPort = "https".equalsIgnoreCase(scheme) ? 443 : 80;
            URI h = URI.create(scheme + "://" + host);
            if (o.getHost() == null || h.getHost() == null) {
                return false;
            }
            int originPort = o.getPort() >= 0 ? o.getPort() : defaultPort;
            int hostPort = h.getPort() >= 0 ? h.getPort() : defaultPort;
            return o.getHost().equalsIgnoreCase(h.getHost()) && originPort == hostPort;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static String stripPort(String host) {
        if (host.startsWith("[")) {
            int end = host.indexOf(']');
            return end > 0 ? host.substring(0, end + 1) : host;
        }
        int colon = host.lastIndexOf(':');
        return colon >= 0 ? host.substring(0, colon) : host;
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
