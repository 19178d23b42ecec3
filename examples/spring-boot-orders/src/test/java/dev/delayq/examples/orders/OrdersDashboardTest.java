package dev.delayq.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.test.spring.AutoConfigureDelayqRedis;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The dashboard inside the example at /delayq, behind Spring Security: anonymous 401, the ops user (role DELAYQ) sees
 * the page and the orders queue's time-out jobs, and a change needs the CSRF token of the XSRF-TOKEN cookie; the
 * orders API stays open.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"orders.payment-timeout=1h", "spring.security.user.password=ops-test-password"})
@AutoConfigureDelayqRedis
class OrdersDashboardTest {
    private static final String OPS = "Basic " + Base64.getEncoder()
            .encodeToString("ops:ops-test-password".getBytes(StandardCharsets.UTF_8));

    @Value("${local.server.port}")
    int port;

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> send(String method, String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, HttpRequest.BodyPublishers.noBody());
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theDashboardShowsTheOrdersTimeoutsToTheOpsRoleOnly() throws Exception {
        assertThat(send("POST", "/orders").statusCode()).isEqualTo(201);
        assertThat(send("GET", "/delayq/").statusCode()).isEqualTo(401);

        HttpResponse<String> page = send("GET", "/delayq/", "Authorization", OPS);
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("data-base=\"/delayq\"");
        HttpResponse<String> jobs = send("GET", "/delayq/api/queues/orders/jobs", "Authorization", OPS);
        assertThat(jobs.statusCode()).isEqualTo(200);
        assertThat(jobs.body()).contains(":timeout\"");

        String csrf = jobs.headers().allValues("Set-Cookie").stream().filter(c -> c.startsWith("XSRF-TOKEN="))
                .map(c -> c.substring("XSRF-TOKEN=".length(), c.indexOf(';'))).findFirst().orElseThrow();
        assertThat(send("POST", "/delayq/api/queues/orders/pause", "Authorization", OPS).statusCode()).isEqualTo(403);
        assertThat(send("POST", "/delayq/api/queues/orders/pause", "Authorization", OPS,
                "Cookie", "XSRF-TOKEN=" + csrf, "X-XSRF-TOKEN", csrf).statusCode()).isEqualTo(200);
        assertThat(send("POST", "/delayq/api/queues/orders/resume", "Authorization", OPS,
                "Cookie", "XSRF-TOKEN=" + csrf, "X-XSRF-TOKEN", csrf).body()).contains("\"paused\":false");
    }
}
