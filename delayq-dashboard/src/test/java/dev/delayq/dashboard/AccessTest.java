package dev.delayq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.testkit.RedisExtension;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Who may do what, over real HTTP: the token (Bearer or the login page's session cookie), 401 without it,
 * cross-site mutations refused, read-only mode, the host check without a token, and the security headers.
 */
class AccessTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    /** Every kind of resource: pages, the API, metrics, the script. */
    private static final List<String> PROTECTED = List.of("/", "/queues/orders", "/queues/orders/jobs/d1", "/api/queues",
            "/api/server", "/api/queues/orders/jobs?state=dead", "/api/queues/orders/jobs/d1", "/metrics",
            "/assets/app.js", "/assets/uPlot.iife.min.js");

    @Test
    void withATokenEveryRequestWithoutItIs401() {
        try (Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            Seed.dead(s.dq.queue("orders"), "boom", "d1");
            for (String path : PROTECTED) {
                Http.Response r = s.anonymous.get(path);
                assertThat(r.status()).as(path).isEqualTo(401);
                assertThat(r.header("WWW-Authenticate")).as(path).isEqualTo("Bearer realm=\"delayq\"");
                assertThat(r.body()).as(path).doesNotContain("boom", "p-d1");
                assertThat(s.http.get(path).status()).as(path + " with the token").isEqualTo(200);
            }
            Http.Response api = s.anonymous.get("/api/queues");
            assertThat(api.error()).isEqualTo("a token is required: log in at /login, or send 'Authorization: Bearer <token>'");
            Http.Response wrong = s.anonymous.withToken(Served.TOKEN + "x").get("/api/queues");
            assertThat(wrong.status()).isEqualTo(401);
            assertThat(wrong.error()).startsWith("the token or session is not valid");
            assertThat(s.anonymous.with("Authorization", "Basic " + Served.TOKEN).get("/api/queues").status()).isEqualTo(401);
            // Mutations too, before anything else is looked at.
            assertThat(s.anonymous.post("/api/queues/orders/jobs/d1/retry").status()).isEqualTo(401);
            assertThat(s.anonymous.delete("/api/queues/orders/jobs/d1").status()).isEqualTo(401);
            assertThat(s.dq.queue("orders").get("d1").orElseThrow().state()).isEqualTo(JobState.DEAD);
        }
    }

    @Test
    void aPageWithoutTheTokenAsksForIt() {
        try (Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            Http.Response page = s.anonymous.get("/");
            assertThat(page.status()).isEqualTo(401);
            assertThat(page.header("Content-Type")).startsWith("text/html");
            assertThat(page.body()).contains("<form method=\"post\" action=\"/login\">", "name=\"token\"");
            Http.Response login = s.anonymous.get("/login");
            assertThat(login.status()).isEqualTo(200);
            assertThat(login.body()).contains("name=\"token\"");
            assertThat(s.anonymous.get("/assets/login.css").status()).isEqualTo(200);
        }
    }

    @Test
    void theLoginPageSetsAnHttpOnlyStrictSessionCookie() {
        try (Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            Http.Response bad = s.anonymous.postForm("/login", "token=wrong-token-0123456789");
            assertThat(bad.status()).isEqualTo(401);
            assertThat(bad.body()).contains("That token is not right.");
            assertThat(bad.header("Set-Cookie")).isNull();

            Http.Response ok = s.anonymous.postForm("/login", "token=" + Served.TOKEN);
            assertThat(ok.status()).isEqualTo(303);
            assertThat(ok.header("Location")).isEqualTo("/");
            String cookie = ok.header("Set-Cookie");
            String name = Access.COOKIE + "_" + s.dashboard.port();
            assertThat(cookie).startsWith(name + "=").contains("; HttpOnly", "; SameSite=Strict", "; Path=/");
            String session = cookie.substring(0, cookie.indexOf(';'));
            assertThat(session.length()).isGreaterThan(name.length() + 40);

            Http.Response withCookie = s.anonymous.with("Cookie", session).get("/api/queues");
            assertThat(withCookie.status()).isEqualTo(200);
            assertThat(s.anonymous.with("Cookie", session).get("/").status()).isEqualTo(200);
            assertThat(s.anonymous.with("Cookie", name + "=forged").get("/api/queues").status()).isEqualTo(401);

            Http.Response logout = s.anonymous.with("Cookie", session).post("/logout");
            assertThat(logout.status()).isEqualTo(303);
            assertThat(logout.header("Set-Cookie")).contains("Max-Age=0");
            assertThat(s.anonymous.with("Cookie", session).get("/api/queues").status()).as("after logout").isEqualTo(401);
        }
    }

    @Test
    void crossSiteMutationsAre403() {
        try (Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            JobQueue orders = s.dq.queue("orders");
            Seed.dead(orders, "boom", "d1");
            String self = "http://127.0.0.1:" + s.dashboard.port();
            List<Http> foreign = List.of(s.http.with("Origin", "http://evil.example"),
                    s.http.with("Origin", "http://127.0.0.1:" + (s.dashboard.port() + 1)),
                    s.http.with("Origin", "null"),
                    s.http.with("Sec-Fetch-Site", "cross-site"),
                    s.http.with("Sec-Fetch-Site", "same-site"),
                    s.http.with("Sec-Fetch-Site", "cross-site", "Origin", self));
            for (Http h : foreign) {
                Http.Response r = h.post("/api/queues/orders/jobs/d1/retry");
                assertThat(r.status()).isEqualTo(403);
                assertThat(r.error()).containsAnyOf("cross-site request refused", "cross-origin request refused");
                assertThat(h.delete("/api/queues/orders/jobs/d1").status()).isEqualTo(403);
                assertThat(h.post("/api/queues/orders/dead/retry-all").status()).isEqualTo(403);
                assertThat(h.post("/api/queues/orders/matching/retry?state=dead").status()).isEqualTo(403);
                assertThat(h.post("/api/queues/orders/matching/delete?state=dead").status()).isEqualTo(403);
                // A cross-site login form cannot log a browser in either.
                assertThat(h.postForm("/login", "token=" + Served.TOKEN).status()).isEqualTo(403);
            }
            assertThat(orders.get("d1").orElseThrow().state()).isEqualTo(JobState.DEAD);
            // Reads are not refused for their origin (a cross-site page cannot read the answer anyway: no CORS).
            assertThat(s.http.with("Sec-Fetch-Site", "cross-site").get("/api/queues").status()).isEqualTo(200);

            Http.Response same = s.http.with("Origin", self, "Sec-Fetch-Site", "same-origin")
                    .post("/api/queues/orders/jobs/d1/retry");
            assertThat(same.status()).as(same.toString()).isEqualTo(200);
            assertThat(orders.get("d1").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
        }
    }

    /**
     * A browser logged in by the login page sends its session cookie with every request to the dashboard's host: with
     * it, a change is refused when the browser says the request comes from elsewhere (another site, another port of the
     * same host, an opaque origin), whatever the change, logout included; from the dashboard's own origin it is made.
     */
    @Test
    void withTheSessionCookieChangesFromAnotherOriginAre403AndFromItsOwnAreMade() {
        try (Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            JobQueue orders = s.dq.queue("orders");
            Seed.dead(orders, "boom", "d1", "d2");
            Http browser = s.anonymous.with("Cookie", sessionCookie(s));
            int port = s.dashboard.port();
            String self = "http://127.0.0.1:" + port;
            String otherPort = "http://127.0.0.1:" + (port + 1);
            for (Http h : List.of(browser.with("Origin", "http://evil.example"), browser.with("Origin", otherPort),
                    browser.with("Origin", "null"), browser.with("Sec-Fetch-Site", "cross-site"),
                    browser.with("Sec-Fetch-Site", "same-site", "Origin", otherPort),
                    browser.with("Sec-Fetch-Site", "cross-site", "Origin", self))) {
                for (Http.Response r : List.of(h.post("/api/queues/orders/jobs/d1/retry"), h.delete("/api/queues/orders/jobs/d1"),
                        h.post("/api/queues/orders/dead/retry-all"), h.post("/api/queues/orders/pause"), h.post("/logout"))) {
                    assertThat(r.status()).as(r.raw().request().method() + " " + r.raw().uri()).isEqualTo(403);
                    assertThat(r.error()).containsAnyOf("cross-site request refused", "cross-origin request refused");
                }
            }
            assertThat(orders.get("d1").orElseThrow().state()).isEqualTo(JobState.DEAD);
            assertThat(orders.inspector().stats().paused()).isFalse();
            assertThat(browser.get("/api/queues").status()).as("still logged in: the logout was refused too").isEqualTo(200);

            // From the dashboard's own pages (a browser says so in both headers): made.
            Http.Response own = browser.with("Origin", self, "Sec-Fetch-Site", "same-origin").post("/api/queues/orders/jobs/d1/retry");
            assertThat(own.status()).as(own.toString()).isEqualTo(200);
            assertThat(orders.get("d1").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
            // There is no CSRF token: a request that names no origin at all is not refused for it. Only a client that is
            // not a browser sends neither header (every current browser sends Sec-Fetch-Site, and Origin on POST and
            // DELETE), and a browser sends this cookie to no other site (SameSite=Strict).
            Http.Response silent = browser.post("/api/queues/orders/jobs/d2/retry");
            assertThat(silent.status()).as(silent.toString()).isEqualTo(200);
            assertThat(orders.get("d2").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
        }
    }

    /**
     * Without a token, anyone who reaches the loopback address may change things, but a page of another origin that a
     * browser on this machine opens may not: its changes are refused for their origin, as with a token.
     */
    @Test
    void withoutATokenChangesFromAnotherOriginAre403() {
        try (Served s = Served.open(REDIS.uri(), REDIS.prefix())) {
            JobQueue orders = s.dq.queue("orders");
            Seed.dead(orders, "boom", "d1", "d2");
            int port = s.dashboard.port();
            String self = "http://127.0.0.1:" + port;
            String otherPort = "http://127.0.0.1:" + (port + 1);
            for (Http h : List.of(s.anonymous.with("Origin", "http://evil.example"), s.anonymous.with("Origin", otherPort),
                    s.anonymous.with("Origin", "null"), s.anonymous.with("Sec-Fetch-Site", "cross-site"),
                    s.anonymous.with("Sec-Fetch-Site", "same-site", "Origin", otherPort),
                    s.anonymous.with("Sec-Fetch-Site", "cross-site", "Origin", self))) {
                for (Http.Response r : List.of(h.post("/api/queues/orders/jobs/d1/retry"), h.delete("/api/queues/orders/jobs/d1"),
                        h.post("/api/queues/orders/dead/retry-all"), h.post("/api/queues/orders/pause"))) {
                    assertThat(r.status()).as(r.raw().request().method() + " " + r.raw().uri()).isEqualTo(403);
                    assertThat(r.error()).containsAnyOf("cross-site request refused", "cross-origin request refused");
                }
            }
            assertThat(orders.get("d1").orElseThrow().state()).isEqualTo(JobState.DEAD);
            assertThat(orders.inspector().stats().paused()).isFalse();
            // Reads are answered (a page of another origin cannot read the answer: no CORS).
            assertThat(s.anonymous.with("Origin", "http://evil.example").get("/api/queues").status()).isEqualTo(200);

            Http.Response own = s.anonymous.with("Origin", self, "Sec-Fetch-Site", "same-origin")
                    .post("/api/queues/orders/jobs/d1/retry");
            assertThat(own.status()).as(own.toString()).isEqualTo(200);
            assertThat(orders.get("d1").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
            // curl, which names no origin, is not refused.
            assertThat(s.anonymous.post("/api/queues/orders/jobs/d2/retry").status()).isEqualTo(200);
            assertThat(orders.get("d2").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
        }
    }

    /** Logs in with the token on the login page; returns the session cookie it set ({@code name=value}). */
    private static String sessionCookie(Served s) {
        Http.Response ok = s.anonymous.postForm("/login", "token=" + Served.TOKEN);
        assertThat(ok.status()).isEqualTo(303);
        String cookie = ok.header("Set-Cookie");
        assertThat(cookie).startsWith(Access.COOKIE + "_" + s.dashboard.port() + "=");
        return cookie.substring(0, cookie.indexOf(';'));
    }

    @Test
    void readOnlyRefusesEveryChangeWith403() {
        try (Served s = Served.start(REDIS.uri(), REDIS.prefix(), b -> b.token(Served.TOKEN).readOnly(true), Served.TOKEN)) {
            JobQueue orders = s.dq.queue("orders");
            Seed.dead(orders, "boom", "d1");
            Seed.scheduled(orders, "s1");
            for (String path : List.of("/api/queues/orders/jobs/d1/retry", "/api/queues/orders/jobs/s1/run-now",
                    "/api/queues/orders/jobs/s1/cancel", "/api/queues/orders/jobs/s1/reschedule?delay=5m",
                    "/api/queues/orders/dead/retry-all", "/api/queues/orders/pause", "/api/queues/orders/resume",
                    "/api/queues/orders/matching/retry?state=dead", "/api/queues/orders/matching/delete?state=scheduled")) {
                Http.Response r = s.http.post(path);
                assertThat(r.status()).as(path).isEqualTo(403);
                assertThat(r.error()).isEqualTo("the dashboard is read-only: changes are refused");
            }
            assertThat(s.http.delete("/api/queues/orders/jobs/d1").status()).isEqualTo(403);
            assertThat(orders.get("d1").orElseThrow().state()).isEqualTo(JobState.DEAD);
            assertThat(orders.get("s1").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
            assertThat(s.http.get("/api/queues").status()).isEqualTo(200);
            assertThat(s.http.get("/api/server").json().get("readOnly").asBoolean()).isTrue();
            assertThat(s.anonymous.postForm("/login", "token=" + Served.TOKEN).status()).as("login still works").isEqualTo(303);
        }
    }

    @Test
    void withoutATokenOnlyLoopbackHostNamesAreAccepted() throws IOException {
        try (Served s = Served.open(REDIS.uri(), REDIS.prefix())) {
            Seed.dead(s.dq.queue("orders"), "boom", "d1");
            assertThat(s.anonymous.get("/api/queues").status()).isEqualTo(200);
            assertThat(s.anonymous.get("/api/server").json().get("tokenRequired").asBoolean()).isFalse();
            int port = s.dashboard.port();
            assertThat(rawStatus(port, "GET", "/api/queues", "localhost:" + port)).isEqualTo(200);
            assertThat(rawStatus(port, "GET", "/api/queues", "127.0.0.1:" + port)).isEqualTo(200);
            // DNS rebinding: a page of evil.example whose name now resolves to 127.0.0.1.
            assertThat(rawStatus(port, "GET", "/api/queues", "evil.example:" + port)).isEqualTo(403);
            assertThat(rawStatus(port, "POST", "/api/queues/orders/jobs/d1/retry", "evil.example:" + port)).isEqualTo(403);
            assertThat(s.dq.queue("orders").get("d1").orElseThrow().state()).isEqualTo(JobState.DEAD);
            assertThat(s.anonymous.get("/login").status()).as("no login without a token").isEqualTo(303);
        }
    }

    @Test
    void everyAnswerCarriesTheSecurityHeaders() {
        try (Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            for (Http.Response r : List.of(s.http.get("/"), s.http.get("/api/queues"), s.anonymous.get("/"),
                    s.http.get("/api/nothing"), s.http.get("/assets/app.js"))) {
                String csp = r.header("Content-Security-Policy");
                assertThat(csp).contains("script-src 'self'", "default-src 'none'", "frame-ancestors 'none'")
                        .doesNotContain("unsafe-inline", "unsafe-eval");
                assertThat(r.header("X-Content-Type-Options")).isEqualTo("nosniff");
                assertThat(r.header("X-Frame-Options")).isEqualTo("DENY");
                assertThat(r.header("Referrer-Policy")).isEqualTo("same-origin");
                assertThat(r.header("Server")).isNull();
            }
            // The pages load their script from a file: no inline script, no inline event handler.
            String shell = s.http.get("/").body();
            assertThat(shell).contains("<script src=\"/assets/app.js\" defer></script>");
            assertThat(shell.replace("<script src=", "")).doesNotContain("<script", "onload=", "onclick=", "javascript:");
            assertThat(s.http.get("/api/queues").header("Cache-Control")).isEqualTo("no-store");
        }
    }

    /** A request with its own Host header (java.net.http does not let a caller set it). */
    private static int rawStatus(int port, String method, String path, String host) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write((method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String status = new String(in.readNBytes(12), StandardCharsets.US_ASCII);
            return Integer.parseInt(status.substring(9, 12));
        }
    }
}
