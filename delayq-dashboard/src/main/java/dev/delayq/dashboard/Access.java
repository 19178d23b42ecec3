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

    /** Runs before every request; throws {@link ApiException} (401, 403) to refuse it. */
    void check(Exchange ctx) {
        ctx.header("Content-Security-Policy", CSP);
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("X-Frame-Options", "DENY");
        // Not no-referrer: under it a browser sends 'Origin: null' with its own POSTs, which the CSRF check must refuse.
        ctx.header("Referrer-Policy", "same-origin");
        ctx.header("Cross-Origin-Opener-Policy", "same-origin");
        ctx.header("Cross-Origin-Resource-Policy", "same-origin");
        ctx.header("Cache-Control", "no-store");
        String path = ctx.path();
        if (tokenHash == null && hosts != null) {
            checkHost(ctx);
        }
        if (!OPEN.contains(path) && !authenticated(ctx)) {
            ctx.header("WWW-Authenticate", "Bearer realm=\"delayq\"");
            throw new ApiException(401, ctx.header("Authorization") != null || ctx.cookie(COOKIE) != null
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
            return tokenMatches(auth.substring(7).strip());
        }
        return sessions.valid(ctx.cookie(COOKIE));
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
            if (host == null || !sameAuthority(origin, host)) {
                throw new ApiException(403, "cross-origin request refused (Origin: " + origin + ")");
            }
        }
    }

    /** Whether the {@code Origin} names the same host and port as the {@code Host} header (default ports implied). */
    static boolean sameAuthority(String origin, String host) {
        try {
            URI o = URI.create(origin);
            if (o.getHost() == null) {
                return false; // "null" and other opaque origins
            }
            int originPort = o.getPort() >= 0 ? o.getPort() : "https".equalsIgnoreCase(o.getScheme()) ? 443 : 80;
            URI h = URI.create("http://" + host);
            if (h.getHost() == null) {
                return false;
            }
            int hostPort = h.getPort() >= 0 ? h.getPort() : originPort;
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
