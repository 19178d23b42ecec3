package dev.delayq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.DelayQ;
import dev.delayq.JobState;
import dev.delayq.testkit.RedisExtension;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The standalone dashboard under a path prefix, as behind a reverse proxy: one that passes the prefix on
 * ({@code basePath}), one that strips it and says so in {@code X-Forwarded-Prefix} (believed only when
 * {@code trustForwardedHeaders} is on), and HTTPS ended at the proxy ({@code X-Forwarded-Proto}: Secure cookies).
 * Real HTTP requests with the paths a proxy would send.
 */
class MountTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    /** A proxy that keeps the prefix: the dashboard serves under /delayq and nothing outside it. */
    @Test
    void underABasePathEverythingStaysUnderIt() {
        try (Served s = Served.start(REDIS.uri(), REDIS.prefix(), b -> b.token(Served.TOKEN).basePath("/delayq/"), Served.TOKEN)) {
            int port = s.dashboard.port();
            assertThat(s.dashboard.url()).isEqualTo("http://127.0.0.1:" + port + "/delayq/");
            Seed.dead(s.dq.queue("orders"), "boom", "d1");
            Http root = new Http("http://127.0.0.1:" + port).withToken(Served.TOKEN);
            Http.Response page = root.get("/delayq/");
            assertThat(page.status()).as(page.toString()).isEqualTo(200);
            assertThat(page.body()).contains("data-base=\"/delayq\"", "src=\"/delayq/assets/app.js\"", "action=\"/delayq/logout\"");
            assertThat(root.get("/delayq/queues/orders").body()).contains("data-base=\"/delayq\"");
            assertThat(root.get("/delayq/assets/app.js").status()).isEqualTo(200);
            assertThat(root.get("/delayq/api/queues/orders/jobs?state=dead").json().get("jobs").get(0).get("id").asText())
                    .isEqualTo("d1");
            assertThat(root.post("/delayq/api/queues/orders/jobs/d1/retry").status()).isEqualTo(200);
            assertThat(s.dq.queue("orders").get("d1").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
            assertThat(root.get("/api/queues").status()).as("outside the base path").isEqualTo(404);

            Http anonymous = new Http("http://127.0.0.1:" + port);
            assertThat(anonymous.get("/delayq/").body()).contains("action=\"/delayq/login\"", "href=\"/delayq/assets/login.css\"");
            Http.Response login = anonymous.postForm("/delayq/login", "token=" + Served.TOKEN);
            assertThat(login.status()).isEqualTo(303);
            assertThat(login.header("Location")).isEqualTo("/delayq/");
            String cookie = login.header("Set-Cookie");
            assertThat(cookie).startsWith(Access.COOKIE + "_" + port + "_delayq=").contains("; Path=/delayq;", "; HttpOnly")
                    .doesNotContain("Secure");
            String session = cookie.substring(0, cookie.indexOf(';'));
            assertThat(anonymous.with("Cookie", session).get("/delayq/api/queues").status()).isEqualTo(200);
            Http.Response logout = anonymous.with("Cookie", session).post("/delayq/logout");
            assertThat(logout.header("Location")).isEqualTo("/delayq/login");
        }
    }

    /**
     * A proxy that strips /ops/dq and ends HTTPS, trusted: links, redirects and the cookie's path carry the prefix, the
     * cookie is Secure with the __Secure- prefix, and the same-origin check expects the browser's https origin.
     */
    @Test
    void behindATrustedProxyThePrefixSchemeAndHostAreTheBrowsers() {
        try (Served s = Served.start(REDIS.uri(), REDIS.prefix(), b -> b.token(Served.TOKEN).trustForwardedHeaders(true),
                Served.TOKEN)) {
            Seed.dead(s.dq.queue("orders"), "boom", "d1", "d2");
            Http proxied = s.anonymous.with("X-Forwarded-Proto", "https", "X-Forwarded-Host", "dq.example",
                    "X-Forwarded-Prefix", "/ops/dq/", "X-Forwarded-For", "203.0.113.9");
            Http.Response page = proxied.get("/");
            assertThat(page.status()).isEqualTo(401);
            assertThat(page.body()).contains("action=\"/ops/dq/login\"");
            Http.Response login = proxied.postForm("/login", "token=" + Served.TOKEN);
            assertThat(login.status()).as(login.toString()).isEqualTo(303);
            assertThat(login.header("Location")).isEqualTo("/ops/dq/");
            String cookie = login.header("Set-Cookie");
            assertThat(cookie).startsWith("__Secure-" + Access.COOKIE + "_443_ops_dq=")
                    .contains("; Path=/ops/dq;", "; Secure", "; HttpOnly", "; SameSite=Strict");
            String session = cookie.substring(0, cookie.indexOf(';'));
            Http browser = proxied.with("Cookie", session);
            assertThat(browser.get("/").body()).contains("data-base=\"/ops/dq\"", "src=\"/ops/dq/assets/app.js\"");
            // The browser's origin is https://dq.example: that one may change things, http:// and other hosts may not.
            assertThat(browser.with("Origin", "https://dq.example").post("/api/queues/orders/jobs/d1/retry").status())
                    .isEqualTo(200);
            assertThat(browser.with("Origin", "http://dq.example").post("/api/queues/orders/jobs/d2/retry").status())
                    .isEqualTo(403);
            assertThat(browser.with("Origin", "https://127.0.0.1:" + s.dashboard.port())
                    .post("/api/queues/orders/jobs/d2/retry").status()).isEqualTo(403);
            assertThat(s.dq.queue("orders").get("d2").orElseThrow().state()).isEqualTo(JobState.DEAD);

            // At the root over HTTPS: the __Host- prefix (Path=/, Secure, no Domain).
            Http.Response rootLogin = s.anonymous.with("X-Forwarded-Proto", "https", "X-Forwarded-Host", "dq.example")
                    .postForm("/login", "token=" + Served.TOKEN);
            assertThat(rootLogin.header("Set-Cookie")).startsWith("__Host-" + Access.COOKIE + "_443=")
                    .contains("; Path=/;", "; Secure").doesNotContain("Domain");
            // A proxy that sends a malformed header is a set-up error, said as such.
            Http.Response bad = s.anonymous.with("X-Forwarded-Prefix", "/a/../b").withToken(Served.TOKEN).get("/api/queues");
            assertThat(bad.status()).isEqualTo(400);
            assertThat(bad.error()).startsWith("X-Forwarded-Prefix is not a path such as /delayq");
            assertThat(s.anonymous.with("X-Forwarded-Proto", "gopher").withToken(Served.TOKEN).get("/api/queues").error())
                    .isEqualTo("X-Forwarded-Proto is 'gopher': it must be http or https");
        }
    }

    /** Without trustForwardedHeaders the same headers change nothing: a client cannot choose them. */
    @Test
    void forwardedHeadersAreIgnoredUnlessTrusted() throws IOException {
        try (Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            Seed.dead(s.dq.queue("orders"), "boom", "d1");
            Http spoofing = s.anonymous.with("X-Forwarded-Proto", "https", "X-Forwarded-Host", "dq.example",
                    "X-Forwarded-Prefix", "/ops/dq", "X-Forwarded-For", "198.51.100.7");
            assertThat(spoofing.get("/").body()).contains("action=\"/login\"").doesNotContain("/ops/dq");
            Http.Response login = spoofing.postForm("/login", "token=" + Served.TOKEN);
            assertThat(login.header("Location")).isEqualTo("/");
            assertThat(login.header("Set-Cookie")).startsWith(Access.COOKIE + "_" + s.dashboard.port() + "=")
                    .contains("; Path=/;").doesNotContain("Secure");
            assertThat(spoofing.withToken(Served.TOKEN).with("Origin", "https://dq.example")
                    .post("/api/queues/orders/jobs/d1/retry").status()).isEqualTo(403);
            // X-Forwarded-For does not move a throttled client to another address.
            long wait = 0;
            for (int i = 0; i < 60 && wait < 8; i++) {
                Http.Response r = s.anonymous.with("X-Forwarded-For", "198.51.100." + i).postForm("/login", "token=wrong-token-0123456789");
                wait = r.status() == 429 ? Long.parseLong(r.header("Retry-After")) : 0;
            }
            assertThat(wait).isGreaterThanOrEqualTo(8);
            assertThat(s.anonymous.with("X-Forwarded-For", "198.51.100.200").postForm("/login", "token=" + Served.TOKEN).status())
                    .isEqualTo(429);
        }
    }

    @Test
    void aBadBasePathIsRefused() {
        try (DelayQ dq = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).build()) {
            for (String bad : new String[] {"delayq", "/a b", "/a/../b", "/a//b", "/./x"}) {
                assertThatThrownBy(() -> Dashboard.builder(dq).basePath(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("base path is '" + bad + "': use a path such as /delayq (letters, digits, '.', '_', "
                                + "'~', '-' between slashes), or / for the root");
            }
            Dashboard.builder(dq).basePath("/");
        }
    }
}
