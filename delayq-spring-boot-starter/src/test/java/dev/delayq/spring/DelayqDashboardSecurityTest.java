package dev.delayq.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQ;
import dev.delayq.test.spring.AutoConfigureDelayqRedis;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;

/**
 * The dashboard inside an application with Spring Security, on this Boot line's embedded Tomcat and a private Redis:
 * its own filter chain requires the role DELAYQ under /delayq (anonymous 401, another role 403), a change needs the
 * CSRF token from the XSRF-TOKEN cookie, and the application's own default chain still protects every other path.
 */
@SpringBootTest(classes = DelayqDashboardSecurityTest.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "delayq.dashboard.enabled=true")
@AutoConfigureDelayqRedis
class DelayqDashboardSecurityTest {
    private static final String OPS = DashboardHttp.basic("ops", "ops-secret");
    private static final String CLERK = DashboardHttp.basic("clerk", "clerk-secret");

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        InMemoryUserDetailsManager users() {
            return new InMemoryUserDetailsManager(
                    User.withUsername("ops").password("{noop}ops-secret").roles("DELAYQ").build(),
                    User.withUsername("clerk").password("{noop}clerk-secret").roles("USER").build());
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    DelayqTemplate template;

    @Autowired
    DelayQ delayQ;

    DashboardHttp http;

    @BeforeEach
    void seed() {
        http = new DashboardHttp(port);
        delayQ.inspector("dash").resume();
        template.enqueue("dash", "order-1:timeout", new Order(1, "pen"), Duration.ofHours(1));
    }

    @Test
    void anonymousIsAskedToAuthenticateAndAnotherRoleIsRefused() {
        assertThat(http.get("/delayq/").statusCode()).isEqualTo(401);
        assertThat(http.get("/delayq/api/queues").statusCode()).isEqualTo(401);
        assertThat(http.get("/delayq/api/queues", "Authorization", CLERK).statusCode()).isEqualTo(403);
        assertThat(http.get("/delayq/api/queues", "Authorization", DashboardHttp.basic("ops", "wrong")).statusCode())
                .isEqualTo(401);
    }

    @Test
    void theRoleSeesThePageItsAssetsUnderThePathAndTheQueuesJobs() {
        HttpResponse<String> page = http.get("/delayq/", "Authorization", OPS);
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
        assertThat(page.body()).contains("data-base=\"/delayq\"", "src=\"/delayq/assets/app.js\"",
                "href=\"/delayq/assets/app.css\"");
        HttpResponse<String> script = http.get("/delayq/assets/app.js", "Authorization", OPS);
        assertThat(script.statusCode()).isEqualTo(200);
        assertThat(script.headers().firstValue("Content-Type")).hasValueSatisfying(
                t -> assertThat(t).startsWith("text/javascript"));
        assertThat(script.body()).contains("X-XSRF-TOKEN", "dataset.base");
        assertThat(http.get("/delayq/assets/uPlot.min.css", "Authorization", OPS).headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("text/css"));
        // The client-side pages of a queue and a job are the same shell.
        assertThat(http.get("/delayq/queues/dash", "Authorization", OPS).body()).contains("data-base=\"/delayq\"");

        HttpResponse<String> jobs = http.get("/delayq/api/queues/dash/jobs?state=scheduled", "Authorization", OPS);
        assertThat(jobs.statusCode()).isEqualTo(200);
        assertThat(jobs.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(jobs.body()).contains("\"id\":\"order-1:timeout\"", "\"state\":\"scheduled\"");
        assertThat(http.get("/delayq/api/queues/nope/jobs", "Authorization", OPS).statusCode()).isEqualTo(404);
        assertThat(http.get("/delayq/api/nothing-here", "Authorization", OPS).statusCode()).isEqualTo(404);
    }

    @Test
    void aChangeNeedsTheCsrfTokenOfTheCookie() {
        HttpResponse<String> server = http.get("/delayq/api/server", "Authorization", OPS);
        assertThat(server.statusCode()).isEqualTo(200);
        assertThat(server.body()).contains("\"tokenRequired\":false");
        String csrf = DashboardHttp.setCookie(server, "XSRF-TOKEN").orElseThrow();

        assertThat(http.post("/delayq/api/queues/dash/pause", "Authorization", OPS).statusCode()).isEqualTo(403);
        assertThat(http.post("/delayq/api/queues/dash/pause", "Authorization", OPS, "Cookie", "XSRF-TOKEN=" + csrf,
                "X-XSRF-TOKEN", "not-" + csrf).statusCode()).isEqualTo(403);
        assertThat(http.post("/delayq/api/queues/dash/pause", "Cookie", "XSRF-TOKEN=" + csrf, "X-XSRF-TOKEN", csrf)
                .statusCode()).isEqualTo(401);
        assertThat(delayQ.inspector("dash").stats().paused()).isFalse();

        HttpResponse<String> paused = http.post("/delayq/api/queues/dash/pause", "Authorization", OPS,
                "Cookie", "XSRF-TOKEN=" + csrf, "X-XSRF-TOKEN", csrf);
        assertThat(paused.statusCode()).isEqualTo(200);
        assertThat(paused.body()).contains("\"paused\":true");
        assertThat(delayQ.inspector("dash").stats().paused()).isTrue();

        HttpResponse<String> runNow = http.post("/delayq/api/queues/dash/jobs/order-1:timeout/run-now",
                "Authorization", OPS, "Cookie", "XSRF-TOKEN=" + csrf, "X-XSRF-TOKEN", csrf);
        assertThat(runNow.statusCode()).isEqualTo(200);
        assertThat(runNow.body()).contains("\"changed\":true");
        assertThat(delayQ.inspector("dash").get("order-1:timeout").orElseThrow().dueAt())
                .isBefore(java.time.Instant.now().plus(Duration.ofMinutes(1)));
    }

    @Test
    void theApplicationsOwnSecurityStillProtectsEveryOtherPath() {
        assertThat(http.get("/elsewhere").statusCode()).isEqualTo(401);
        assertThat(http.get("/delayq-not-the-dashboard").statusCode()).isEqualTo(401);
    }
}
