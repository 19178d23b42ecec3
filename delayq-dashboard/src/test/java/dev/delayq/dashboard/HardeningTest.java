package dev.delayq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.DelayQ;
import dev.delayq.JobState;
import dev.delayq.internal.Keys;
import dev.delayq.testkit.RedisExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The probe's findings of issue 43, over real HTTP: session cookies per dashboard, throttled logins, a blank token, a
 * huge offset, the server's own error pages, Origin schemes, and one unreadable queue among readable ones.
 */
class HardeningTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    /** Logs in on the login page; returns the Set-Cookie header. */
    private static String login(Served s) {
        Http.Response ok = s.anonymous.postForm("/login", "token=" + Served.TOKEN);
        assertThat(ok.status()).as(ok.toString()).isEqualTo(303);
        return ok.header("Set-Cookie");
    }

    private static String pair(String setCookie) {
        return setCookie.substring(0, setCookie.indexOf(';'));
    }

    /**
     * A browser sends a host's cookies to every port of it: two dashboards on one host used to share one cookie name,
     * so logging into one logged the other out. Each now has its own name, and both stay logged in.
     */
    @Test
    void twoDashboardsOnOneHostKeepTheirOwnSessions() {
        try (Served a = Served.withToken(REDIS.uri(), REDIS.prefix()); Served b = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            String cookieA = login(a);
            assertThat(cookieA).startsWith(Access.COOKIE + "_" + a.dashboard.port() + "=");
            String cookieB = login(b);
            assertThat(cookieB).startsWith(Access.COOKIE + "_" + b.dashboard.port() + "=");
            // What a browser holds for 127.0.0.1 now, sent to both ports.
            String jar = pair(cookieA) + "; " + pair(cookieB);
            assertThat(a.anonymous.with("Cookie", jar).get("/api/queues").status()).isEqualTo(200);
            assertThat(b.anonymous.with("Cookie", jar).get("/api/queues").status()).isEqualTo(200);
            // Logging into A again replaces only A's cookie: B's session is still the one sent.
            String again = login(a);
            String jar2 = pair(again) + "; " + pair(cookieB);
            assertThat(a.anonymous.with("Cookie", jar2).get("/api/queues").status()).isEqualTo(200);
            assertThat(b.anonymous.with("Cookie", jar2).get("/api/queues").status()).isEqualTo(200);
            // A's session is not B's.
            String swapped = Access.COOKIE + "_" + b.dashboard.port() + "=" + pair(cookieA).substring(pair(cookieA).indexOf('=') + 1);
            assertThat(b.anonymous.with("Cookie", swapped).get("/api/queues").status()).isEqualTo(401);
        }
    }

    @Test
    void aBlankTokenIsRefusedAsAShortOne() {
        try (DelayQ dq = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).build()) {
            assertThatThrownBy(() -> Dashboard.builder(dq).token("")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("token is empty: it must have at least 16 printable characters");
            assertThatThrownBy(() -> Dashboard.builder(dq).token(" ".repeat(20))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("token is blank: it must have at least 16 printable characters");
            assertThatThrownBy(() -> Dashboard.checkSettings("127.0.0.1", 8080, "")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> DashboardServlet.builder(dq).token("\t")).isInstanceOf(IllegalArgumentException.class);
        }
    }

    /**
     * Wrong tokens from one address: the first five are answered 401, then the address waits, longer each time; while it
     * waits every attempt is 429 with Retry-After, the right token included. Another address is not held up.
     */
    @Test
    void failedLoginsAreThrottledPerAddress() throws IOException {
        try (Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            int port = s.dashboard.port();
            for (int i = 0; i < LoginThrottle.FREE_FAILURES; i++) {
                assertThat(s.anonymous.postForm("/login", "token=wrong-token-0123456789").status()).as("try " + i).isEqualTo(401);
            }
            // The waits double (1 s, 2 s, 4 s, ...): keep failing until a wait long enough to check is on.
            Http.Response refused = null;
            for (int i = 0; i < 40 && (refused == null || Long.parseLong(refused.header("Retry-After")) < 8); i++) {
                Http.Response r = s.anonymous.postForm("/login", "token=wrong-token-0123456789");
                assertThat(r.status()).as(r.toString()).isIn(401, 429);
                if (r.status() == 429) {
                    refused = r;
                }
            }
            assertThat(refused).as("a 429 after repeated failures").isNotNull();
            assertThat(refused.body()).contains("Too many wrong tokens");
            assertThat(Long.parseLong(refused.header("Retry-After"))).isBetween(8L, LoginThrottle.MAX_WAIT_SECONDS);
            // While it waits, the right token is refused too, on the login page and as a Bearer header.
            Http.Response right = s.anonymous.postForm("/login", "token=" + Served.TOKEN);
            assertThat(right.status()).isEqualTo(429);
            assertThat(right.header("Set-Cookie")).isNull();
            Http.Response bearer = s.http.get("/api/queues");
            assertThat(bearer.status()).isEqualTo(429);
            assertThat(bearer.error()).startsWith("too many failed logins from 127.0.0.1: try again in ");
            assertThat(bearer.header("Retry-After")).isNotNull();
            // Another address logs in at once.
            Raw.Answer other = Raw.send("127.0.0.2", port, "POST", "/login", "token=" + Served.TOKEN,
                    "Content-Type: application/x-www-form-urlencoded");
            assertThat(other.status()).as(other.body()).isEqualTo(303);
            assertThat(other.header("Set-Cookie")).startsWith(Access.COOKIE + "_" + port + "=");
        }
    }

    @Test
    void wrongBearerTokensAreCountedToo() {
        try (Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            Http wrong = s.anonymous.withToken("wrong-token-0123456789");
            int status = 401;
            for (int i = 0; i < 40 && status == 401; i++) {
                status = wrong.get("/api/queues").status();
            }
            assertThat(status).isEqualTo(429);
        }
    }

    @Test
    void aHugeOffsetIs400() {
        try (Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            Seed.dead(s.dq.queue("orders"), "boom", "d1");
            for (String offset : List.of("9223372036854775807", "1000000000001", "99999999999999999999")) {
                Http.Response r = s.http.get("/api/queues/orders/jobs?state=dead&offset=" + offset);
                assertThat(r.status()).as(r.toString()).isEqualTo(400);
                assertThat(r.error()).isEqualTo("offset is '" + offset + "': it must be a whole number from 0 to 1000000000000");
            }
            JsonNode far = s.http.get("/api/queues/orders/jobs?state=dead&offset=1000000000000").json();
            assertThat(far.get("jobs")).isEmpty();
            assertThat(far.get("total").asLong()).isEqualTo(1);
        }
    }

    /** What Jetty answers itself (a URI it refuses, a path outside the base path) carries the dashboard's headers. */
    @Test
    void theServersOwnErrorPagesCarryTheSecurityHeaders() throws IOException {
        try (Served s = Served.start(REDIS.uri(), REDIS.prefix(), b -> b.token(Served.TOKEN).basePath("/delayq"), Served.TOKEN)) {
            int port = s.dashboard.port();
            List<Raw.Answer> answers = new ArrayList<>();
            answers.add(Raw.send(null, port, "GET", "/delayq/%zz", null));
            answers.add(Raw.send(null, port, "GET", "/delayq/a%00b", null));
            answers.add(Raw.send(null, port, "GET", "/elsewhere", null));
            answers.add(Raw.send(null, port, "GET", "/delayq/api/nothing", null, "Authorization: Bearer " + Served.TOKEN));
            answers.add(Raw.send(null, port, "GET", "/delayq/ bad", null));
            for (Raw.Answer r : answers) {
                assertThat(r.status()).as(r.toString()).isIn(400, 404);
                assertThat(r.header("Content-Security-Policy")).as(r.toString()).contains("default-src 'none'", "frame-ancestors 'none'");
                assertThat(r.header("X-Content-Type-Options")).as(r.toString()).isEqualTo("nosniff");
                assertThat(r.header("X-Frame-Options")).as(r.toString()).isEqualTo("DENY");
                assertThat(r.header("Server")).as(r.toString()).isNull();
                assertThat(r.body()).doesNotContain("at org.eclipse", "Caused by");
            }
        }
    }

    /** An Origin of another scheme (https against an http dashboard) is another origin, whatever its host and port. */
    @Test
    void originsAreComparedWithTheirScheme() {
        try (Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            Seed.dead(s.dq.queue("orders"), "boom", "d1");
            int port = s.dashboard.port();
            Http.Response https = s.http.with("Origin", "https://127.0.0.1:" + port).post("/api/queues/orders/jobs/d1/retry");
            assertThat(https.status()).as(https.toString()).isEqualTo(403);
            assertThat(https.error()).startsWith("cross-origin request refused");
            Http.Response http = s.http.with("Origin", "http://127.0.0.1:" + port).post("/api/queues/orders/jobs/d1/retry");
            assertThat(http.status()).as(http.toString()).isEqualTo(200);
        }
        assertThat(Access.sameOrigin("https://a.example", "https", "a.example:443")).isTrue();
        assertThat(Access.sameOrigin("http://a.example", "https", "a.example")).isFalse();
        assertThat(Access.sameOrigin("https://a.example:8443", "https", "a.example")).isFalse();
        assertThat(Access.sameOrigin("http://a.example", "http", "a.example:80")).isTrue();
        assertThat(Access.sameOrigin("null", "http", "a.example")).isFalse();
    }

    /**
     * One queue whose keys something else overwrote (a total that is not a number; a key of the wrong type) is flagged
     * on /api/queues and /metrics; the others are listed as before.
     */
    @Test
    void anUnreadableQueueDegradesOnlyItself() {
        try (Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            Seed.dead(s.dq.queue("orders"), "boom", "d1");
            Seed.scheduled(s.dq.queue("badtotal"), "b1");
            Seed.scheduled(s.dq.queue("badtype"), "t1");
            Seed.scheduled(s.dq.queue("zlast"), "z1");
            REDIS.server().call("HSET", key(new Keys(REDIS.prefix(), "badtotal").meta()), "enqueued", "many");
            String due = key(new Keys(REDIS.prefix(), "badtype").dead());
            REDIS.server().call("DEL", due);
            REDIS.server().call("SET", due, "not a sorted set");

            Http.Response r = s.http.get("/api/queues");
            assertThat(r.status()).as(r.toString()).isEqualTo(200);
            Map<String, JsonNode> byName = new java.util.TreeMap<>();
            r.json().forEach(q -> byName.put(q.get("name").asText(), q));
            assertThat(byName).containsOnlyKeys("orders", "badtotal", "badtype", "zlast");
            assertThat(byName.get("orders").get("dead").asLong()).isEqualTo(1);
            assertThat(byName.get("zlast").get("scheduled").asLong()).isEqualTo(1);
            for (String bad : List.of("badtotal", "badtype")) {
                assertThat(byName.get(bad).get("unreadable").asBoolean()).as(bad).isTrue();
                assertThat(byName.get(bad).get("error").asText()).as(bad).startsWith("the queue's keys cannot be read: ")
                        .endsWith("'delayq check " + bad + "' tells more)");
            }
            assertThat(byName.get("orders").has("unreadable")).isFalse();

            String metrics = s.http.get("/metrics").body();
            assertThat(metrics).contains("delayq_queue_unreadable{queue=\"badtotal\"} 1.0",
                    "delayq_queue_unreadable{queue=\"badtype\"} 1.0", "delayq_queue_unreadable{queue=\"orders\"} 0.0",
                    "delayq_jobs{queue=\"orders\",state=\"dead\"} 1.0", "delayq_jobs{queue=\"zlast\",state=\"scheduled\"} 1.0");
            assertThat(metrics).doesNotContain("delayq_jobs{queue=\"badtype\"");
            assertThat(s.dq.queue("orders").get("d1").orElseThrow().state()).isEqualTo(JobState.DEAD);
        }
    }

    /**
     * /metrics gives at most metricsQueueLimit queues a label of their own: an unreadable queue first, then the largest
     * backlogs; the rest are added up under queue="(other)", and delayq_queues_other counts them.
     */
    @Test
    void metricsCapTheQueueLabels() {
        try (Served s = Served.start(REDIS.uri(), REDIS.prefix(), b -> b.token(Served.TOKEN).metricsQueueLimit(3), Served.TOKEN)) {
            Seed.scheduled(s.dq.queue("big"), "b1", "b2", "b3", "b4");
            Seed.scheduled(s.dq.queue("mid"), "m1", "m2", "m3");
            Seed.scheduled(s.dq.queue("small1"), "s1");
            Seed.scheduled(s.dq.queue("small2"), "t1");
            Seed.dead(s.dq.queue("small3"), "boom", "d1");
            Seed.scheduled(s.dq.queue("broken"), "x1", "x2", "x3", "x4", "x5");
            REDIS.server().call("HSET", key(new Keys(REDIS.prefix(), "broken").meta()), "enqueued", "many");
            s.dq.queue("small2").inspector().pause();

            String metrics = s.http.get("/metrics").body();
            assertThat(metrics).contains("delayq_queue_unreadable{queue=\"broken\"} 1.0",
                    "delayq_jobs{queue=\"big\",state=\"scheduled\"} 4.0", "delayq_jobs{queue=\"mid\",state=\"scheduled\"} 3.0",
                    "delayq_jobs{queue=\"(other)\",state=\"scheduled\"} 2.0", "delayq_jobs{queue=\"(other)\",state=\"dead\"} 1.0",
                    "delayq_queue_paused{queue=\"(other)\"} 1.0", "delayq_queue_unreadable{queue=\"(other)\"} 0.0",
                    "delayq_queues_other 3.0");
            assertThat(metrics).doesNotContain("queue=\"small1\"", "queue=\"small2\"", "queue=\"small3\"");
        }
        try (DelayQ dq = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).build()) {
            assertThatThrownBy(() -> Dashboard.builder(dq).metricsQueueLimit(0)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("metrics queue limit is 0: it must be 1 to 100000");
        }
    }

    @Test
    void deleteAllDeadDeletesTheDeadOnly() {
        try (Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            Seed.dead(s.dq.queue("orders"), "boom", "d1", "d2", "d3");
            Seed.done(s.dq.queue("orders"), "ok");
            Seed.scheduled(s.dq.queue("orders"), "s1");
            Http.Response r = s.http.post("/api/queues/orders/dead/delete-all");
            assertThat(r.status()).as(r.toString()).isEqualTo(200);
            assertThat(r.json().get("deleted").asLong()).isEqualTo(3);
            assertThat(s.dq.queue("orders").inspector().stats().dead()).isZero();
            assertThat(s.dq.queue("orders").get("ok").orElseThrow().state()).isEqualTo(JobState.DONE);
            assertThat(s.dq.queue("orders").get("s1").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
            assertThat(s.dq.queue("orders").get("d1")).isEmpty();
            assertThat(s.http.post("/api/queues/orders/dead/delete-all").json().get("deleted").asLong()).isZero();
            assertThat(s.http.with("Origin", "http://evil.example").post("/api/queues/orders/dead/delete-all").status())
                    .isEqualTo(403);
        }
        try (Served ro = Served.start(REDIS.uri(), REDIS.prefix(), b -> b.token(Served.TOKEN).readOnly(true), Served.TOKEN)) {
            Seed.dead(ro.dq.queue("kept"), "boom", "k1");
            assertThat(ro.http.post("/api/queues/kept/dead/delete-all").status()).isEqualTo(403);
            assertThat(ro.dq.queue("kept").get("k1").orElseThrow().state()).isEqualTo(JobState.DEAD);
        }
    }

    private static String key(byte[] k) {
        return new String(k, StandardCharsets.UTF_8);
    }
}
