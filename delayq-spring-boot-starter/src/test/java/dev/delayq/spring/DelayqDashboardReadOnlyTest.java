package dev.delayq.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQ;
import dev.delayq.test.spring.AutoConfigureDelayqRedis;
import java.net.http.HttpResponse;
import java.time.Duration;
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
 * The dashboard's settings under Spring Security: another role ({@code delayq.dashboard.role=ADMIN}), no CSRF check
 * ({@code delayq.dashboard.csrf=false}: a change reaches the dashboard without the token) and read-only mode (which
 * then refuses it).
 */
@SpringBootTest(classes = DelayqDashboardReadOnlyTest.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {"delayq.dashboard.enabled=true",
                "delayq.dashboard.role=ADMIN", "delayq.dashboard.csrf=false", "delayq.dashboard.read-only=true"})
@AutoConfigureDelayqRedis
class DelayqDashboardReadOnlyTest {
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        InMemoryUserDetailsManager users() {
            return new InMemoryUserDetailsManager(
                    User.withUsername("admin").password("{noop}admin-secret").roles("ADMIN").build(),
                    User.withUsername("ops").password("{noop}ops-secret").roles("DELAYQ").build());
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    DelayqTemplate template;

    @Autowired
    DelayQ delayQ;

    @Test
    void theConfiguredRoleSeesItAndEveryChangeIsRefused() {
        DashboardHttp http = new DashboardHttp(port);
        String admin = DashboardHttp.basic("admin", "admin-secret");
        template.enqueue("dash", "order-3:timeout", new Order(3, "cup"), Duration.ofHours(1));

        assertThat(http.get("/delayq/api/queues", "Authorization", DashboardHttp.basic("ops", "ops-secret"))
                .statusCode()).isEqualTo(403);
        HttpResponse<String> server = http.get("/delayq/api/server", "Authorization", admin);
        assertThat(server.statusCode()).isEqualTo(200);
        assertThat(server.body()).contains("\"readOnly\":true");
        assertThat(DashboardHttp.setCookie(server, "XSRF-TOKEN")).isEmpty();

        HttpResponse<String> pause = http.post("/delayq/api/queues/dash/pause", "Authorization", admin);
        assertThat(pause.statusCode()).isEqualTo(403);
        assertThat(pause.body()).contains("read-only");
        assertThat(delayQ.inspector("dash").stats().paused()).isFalse();
    }
}
