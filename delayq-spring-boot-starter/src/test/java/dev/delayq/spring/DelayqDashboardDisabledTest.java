package dev.delayq.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.test.spring.AutoConfigureDelayqRedis;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;

/** Without {@code delayq.dashboard.enabled=true} (the default), the application serves no dashboard: 404. */
@SpringBootTest(classes = DelayqDashboardTokenTest.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "delayq.dashboard.token=" + DelayqDashboardTokenTest.TOKEN)
@AutoConfigureDelayqRedis
class DelayqDashboardDisabledTest {
    @LocalServerPort
    int port;

    @Test
    void noDashboardIsServed(@Autowired ApplicationContext ctx) {
        DashboardHttp http = new DashboardHttp(port);
        assertThat(http.get("/delayq/").statusCode()).isEqualTo(404);
        assertThat(http.get("/delayq/api/queues", "Authorization", "Bearer " + DelayqDashboardTokenTest.TOKEN)
                .statusCode()).isEqualTo(404);
        assertThat(ctx.containsBean("delayqDashboardServlet")).isFalse();
    }
}
