package dev.delayq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.DelayQ;
import dev.delayq.DelayQConnectionException;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.testkit.RedisExtension;
import java.util.function.Supplier;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link DashboardServlet} in a plain Jetty 12 servlet container (no Javalin in the way), mounted at
 * {@code /app/delayq/*}: the pages say where they are mounted, the API and the token rules work under the mount path,
 * and an application's own authentication replaces the token.
 */
class ServletTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private DelayQ dq;
    private JobQueue orders;
    private Server server;

    @BeforeEach
    void connect() {
        dq = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).build();
        orders = dq.queue("orders");
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.stop();
        }
        dq.close();
    }

    /** Jetty with the servlet at /app/delayq/*; the base URL of the server. */
    private Http serve(DashboardServlet servlet) throws Exception {
        server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/app");
        context.addServlet(new ServletHolder(servlet), "/delayq/*");
        server.setHandler(context);
        server.start();
        return new Http("http://127.0.0.1:" + connector.getLocalPort());
    }

    @Test
    void withTheTokenThePagesAndTheApiWorkUnderTheMountPath() throws Exception {
        Http anonymous = serve(DashboardServlet.builder(dq).token(Served.TOKEN).refresh(java.time.Duration.ofSeconds(3)).build());
        Http http = anonymous.withToken(Served.TOKEN);
        Seed.dead(orders, "boom", "order-7:timeout.v2");

        Http.Response page = http.get("/app/delayq/");
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.header("Content-Type")).startsWith("text/html");
        assertThat(page.header("Content-Security-Policy")).isEqualTo(Access.CSP);
        assertThat(page.body()).contains("data-base=\"/app/delayq\"", "src=\"/app/delayq/assets/app.js\"",
                "action=\"/app/delayq/logout\"", "data-refresh=\"3000\"");
        assertThat(http.get("/app/delayq/assets/uPlot.iife.min.js").header("Content-Type")).startsWith("text/javascript");
        assertThat(http.get("/app/delayq/queues/orders/jobs/x").body()).contains("data-base=\"/app/delayq\"");

        Http.Response dead = http.get("/app/delayq/api/queues/orders/jobs?state=dead");
        assertThat(dead.status()).as(dead.toString()).isEqualTo(200);
        assertThat(dead.json().get("jobs").get(0).get("id").asText()).isEqualTo("order-7:timeout.v2");

        Http.Response retried = http.post("/app/delayq/api/queues/orders/jobs/order-7:timeout.v2/retry");
        assertThat(retried.status()).as(retried.toString()).isEqualTo(200);
        assertThat(orders.get("order-7:timeout.v2").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
        assertThat(http.post("/app/delayq/api/queues/orders/jobs/order-7:timeout.v2/retry").status()).isEqualTo(409);
        assertThat(http.post("/app/delayq/api/queues/nope/pause").status()).isEqualTo(404);
        assertThat(http.send("PUT", "/app/delayq/api/queues/orders/pause", null).status()).isEqualTo(405);
        assertThat(http.get("/app/delayq/api/queues/orders/jobs?limit=0").error()).contains("limit is '0'");

        assertThat(http.with("Origin", "http://evil.example").post("/app/delayq/api/queues/orders/pause").status())
                .isEqualTo(403);
        assertThat(dq.inspector("orders").stats().paused()).isFalse();
    }

    @Test
    void withoutTheTokenThePageIsTheLoginOfTheMountPathAndItsSessionCookieStaysThere() throws Exception {
        Http anonymous = serve(DashboardServlet.builder(dq).token(Served.TOKEN).build());
        Http.Response page = anonymous.get("/app/delayq/");
        assertThat(page.status()).isEqualTo(401);
        assertThat(page.body()).contains("action=\"/app/delayq/login\"");
        assertThat(anonymous.get("/app/delayq/api/queues").status()).isEqualTo(401);
        assertThat(anonymous.get("/app/delayq/assets/login.css").status()).isEqualTo(200);

        Http.Response login = anonymous.postForm("/app/delayq/login", "token=" + Served.TOKEN);
        assertThat(login.status()).isEqualTo(303);
        assertThat(login.header("Location")).isEqualTo("/app/delayq/");
        String cookie = login.header("Set-Cookie");
        assertThat(cookie).contains("Path=/app/delayq;", "HttpOnly", "SameSite=Strict");
        String session = cookie.substring(0, cookie.indexOf(';'));
        assertThat(anonymous.with("Cookie", session).get("/app/delayq/api/queues").status()).isEqualTo(200);

        Http.Response bare = anonymous.get("/app/delayq");
        assertThat(bare.status()).isEqualTo(303);
        assertThat(bare.header("Location")).isEqualTo("/app/delayq/");
    }

    @Test
    void anApplicationsOwnAuthenticationReplacesTheTokenAndItsCsrfCheckTheOriginCheck() throws Exception {
        Http http = serve(DashboardServlet.builder(dq).authenticatedByApplication(true)
                .outbox(() -> java.util.Map.of("pending", 7L)).build());
        Http.Response server = http.get("/app/delayq/api/server");
        assertThat(server.status()).isEqualTo(200);
        assertThat(server.json().get("tokenRequired").asBoolean()).isFalse();
        assertThat(server.json().get("outbox").get("pending").asLong()).as("the application's outbox").isEqualTo(7);
        // The application checked CSRF before the servlet: the dashboard does not second-guess a proxied Host.
        assertThat(http.with("Origin", "https://ops.example").post("/app/delayq/api/queues/orders/pause").status())
                .isEqualTo(404); // no queue "orders" yet: reached the API
        Seed.scheduled(orders, "s1");
        assertThat(http.with("Origin", "https://ops.example").post("/app/delayq/api/queues/orders/pause").status())
                .isEqualTo(200);
        assertThat(dq.inspector("orders").stats().paused()).isTrue();
    }

    @Test
    void aClientNotConnectedYetIsA503AndTheBuilderWantsOneWayOfAccess() throws Exception {
        Supplier<DelayQ> notYet = () -> {
            throw new DelayQConnectionException("not connected to Redis yet", null);
        };
        Http http = serve(DashboardServlet.builder(notYet).token(Served.TOKEN).build()).withToken(Served.TOKEN);
        Http.Response r = http.get("/app/delayq/api/queues");
        assertThat(r.status()).isEqualTo(503);
        assertThat(r.error()).contains("not connected to Redis yet");

        assertThatThrownBy(() -> DashboardServlet.builder(dq).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("needs a token");
        assertThatThrownBy(() -> DashboardServlet.builder(dq).token(Served.TOKEN).authenticatedByApplication(true)
                .build()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one of the two");
        assertThatThrownBy(() -> DashboardServlet.builder(dq).token("short")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 16");
    }
}
