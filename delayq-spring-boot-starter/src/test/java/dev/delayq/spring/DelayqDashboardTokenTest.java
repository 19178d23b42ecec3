package dev.delayq.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQ;
import dev.delayq.dashboard.DashboardServlet;
import dev.delayq.test.spring.AutoConfigureDelayqRedis;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The dashboard inside an application without Spring Security (its auto-configurations left out, on either Boot
 * line): the dashboard's own token rules, as on the standalone server, on the application's embedded Tomcat.
 */
@SpringBootTest(classes = DelayqDashboardTokenTest.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"delayq.dashboard.enabled=true", "delayq.dashboard.path=/ops/delayq",
                "delayq.dashboard.token=" + DelayqDashboardTokenTest.TOKEN})
@AutoConfigureDelayqRedis
class DelayqDashboardTokenTest {
    static final String TOKEN = "0123456789abcdef0123";
    private static final String BEARER = "Bearer " + TOKEN;

    /** Spring Security is on the test class path: its auto-configurations of both Boot lines are left out. */
    @SpringBootConfiguration
    @EnableAutoConfiguration(excludeName = {
            "org.springframework.boot.autoconfigure.security.servlet.SecurityAutoConfiguration",
            "org.springframework.boot.autoconfigure.security.servlet.SecurityFilterAutoConfiguration",
            "org.springframework.boot.autoconfigure.security.servlet.UserDetailsServiceAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.security.servlet.ManagementWebSecurityAutoConfiguration",
            "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
            "org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration",
            "org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration",
            "org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration",
            "org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration"})
    static class App {
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
        template.enqueue("dash", "order-2:timeout", new Order(2, "ink"), Duration.ofHours(1));
    }

    @Test
    void withoutTheTokenThePageIsTheLoginAndTheApiIsRefused() {
        HttpResponse<String> page = http.get("/ops/delayq/");
        assertThat(page.statusCode()).isEqualTo(401);
        assertThat(page.body()).contains("action=\"/ops/delayq/login\"", "href=\"/ops/delayq/assets/login.css\"");
        assertThat(http.get("/ops/delayq/api/queues").statusCode()).isEqualTo(401);
        assertThat(http.get("/ops/delayq/api/queues", "Authorization", "Bearer wrong-token-wrong-token").statusCode())
                .isEqualTo(401);
        assertThat(http.post("/ops/delayq/api/queues/dash/pause").statusCode()).isEqualTo(401);
        assertThat(delayQ.inspector("dash").stats().paused()).isFalse();
        // The mount path without its slash leads to it.
        HttpResponse<String> bare = http.get("/ops/delayq");
        assertThat(bare.statusCode()).isEqualTo(303);
        assertThat(bare.headers().firstValue("Location")).hasValue("/ops/delayq/");
    }

    @Test
    void theTokenListsJobsAndMakesChangesFromTheSameOriginOnly() {
        HttpResponse<String> jobs = http.get("/ops/delayq/api/queues/dash/jobs", "Authorization", BEARER);
        assertThat(jobs.statusCode()).isEqualTo(200);
        assertThat(jobs.body()).contains("\"id\":\"order-2:timeout\"");
        assertThat(http.get("/ops/delayq/", "Authorization", BEARER).body()).contains("data-base=\"/ops/delayq\"");

        HttpResponse<String> crossSite = http.post("/ops/delayq/api/queues/dash/pause", "Authorization", BEARER,
                "Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site");
        assertThat(crossSite.statusCode()).isEqualTo(403);
        assertThat(delayQ.inspector("dash").stats().paused()).isFalse();

        HttpResponse<String> paused = http.post("/ops/delayq/api/queues/dash/pause", "Authorization", BEARER);
        assertThat(paused.statusCode()).isEqualTo(200);
        assertThat(delayQ.inspector("dash").stats().paused()).isTrue();
        assertThat(http.send("PUT", "/ops/delayq/api/queues/dash/pause", "Authorization", BEARER).statusCode())
                .isEqualTo(405);
    }

    @Test
    void theLoginPageGivesASessionCookieForTheDashboardsPathOnly() {
        HttpResponse<String> login = http.form("/ops/delayq/login", "token=" + TOKEN);
        assertThat(login.statusCode()).isEqualTo(303);
        assertThat(login.headers().firstValue("Location")).hasValue("/ops/delayq/");
        assertThat(login.headers().firstValue("Set-Cookie")).hasValueSatisfying(
                c -> assertThat(c).contains("Path=/ops/delayq;", "HttpOnly"));
        // One name per dashboard (its port and path), so two dashboards on one host keep their own sessions.
        String setCookie = login.headers().firstValue("Set-Cookie").orElseThrow();
        String name = setCookie.substring(0, setCookie.indexOf('='));
        assertThat(name).startsWith("delayq_session_").endsWith("_ops_delayq");
        String session = DashboardHttp.setCookie(login, name).orElseThrow();
        assertThat(http.get("/ops/delayq/api/queues", "Cookie", name + "=" + session).statusCode())
                .isEqualTo(200);
    }

    @Test
    void withoutSpringSecurityOrATokenOrTheArtifactOrWithABadPathTheApplicationDoesNotStart() {
        WebApplicationContextRunner runner = new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DelayqDashboardAutoConfiguration.class))
                .withBean(DelayqClient.class, () -> DelayqClient.of(delayQ))
                .withPropertyValues("delayq.dashboard.enabled=true");
        runner.run(ctx -> assertThat(ctx).getFailure().rootCause()
                .hasMessageContaining("delayq.dashboard.token").hasMessageContaining("Spring Security"));
        runner.withPropertyValues("delayq.dashboard.token=short").run(ctx -> assertThat(ctx).getFailure()
                .rootCause().hasMessageContaining("delayq.dashboard.token").hasMessageContaining("16"));
        runner.withPropertyValues("delayq.dashboard.token=" + TOKEN, "delayq.dashboard.path=/delayq/")
                .run(ctx -> assertThat(ctx).getFailure().rootCause()
                        .hasMessageContaining("delayq.dashboard.path is '/delayq/'"));
        runner.withPropertyValues("delayq.dashboard.token=" + TOKEN)
                .run(ctx -> assertThat(ctx).hasNotFailed().hasBean("delayqDashboardServlet"));
        runner.withPropertyValues("delayq.dashboard.enabled=false")
                .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean("delayqDashboardServlet"));
        runner.withPropertyValues("delayq.dashboard.token=" + TOKEN)
                .withClassLoader(new FilteredClassLoader(DashboardServlet.class))
                .run(ctx -> assertThat(ctx).getFailure().rootCause()
                        .hasMessageContaining("delayq-dashboard is not on the class path"));
    }
}
