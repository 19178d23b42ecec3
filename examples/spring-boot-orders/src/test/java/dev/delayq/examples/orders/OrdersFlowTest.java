package dev.delayq.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.Limits;
import dev.delayq.QueueStats;
import dev.delayq.spring.DelayqTemplate;
import dev.delayq.test.DelayqTestJobs;
import dev.delayq.test.spring.AutoConfigureDelayqRedis;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.beans.factory.annotation.Value;

/**
 * The example end to end over HTTP, on a real Redis: an order paid in time stays paid and its time-out is gone;
 * an unpaid one is cancelled by its time-out and can no longer be paid; the queue's rate limit comes from the
 * properties and the recurring report ticks. {@link AutoConfigureDelayqRedis} gives the application a private Redis,
 * {@link DelayqTestJobs} runs a time-out now instead of in an hour.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {"orders.payment-timeout=1h", "orders.report-every=1s"})
@AutoConfigureDelayqRedis
class OrdersFlowTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Value("${local.server.port}")
    int port;

    @Autowired
    DelayqTemplate delayq;

    @Autowired
    UnpaidOrdersReport report;

    @Autowired
    DelayqTestJobs jobs;

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> send(String method, String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, HttpRequest.BodyPublishers.noBody()).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static DocumentContext body(HttpResponse<String> response) {
        return JsonPath.parse(response.body());
    }

    private String status(long id) throws Exception {
        return body(send("GET", "/orders/" + id)).read("$.status", String.class);
    }

    @Test
    void aPaidOrderStaysPaidAndAnUnpaidOneIsCancelledByItsTimeout() throws Exception {
        HttpResponse<String> first = send("POST", "/orders");
        HttpResponse<String> second = send("POST", "/orders");
        assertThat(first.statusCode()).isEqualTo(201);
        long paid = body(first).read("$.id", Long.class);
        long unpaid = body(second).read("$.id", Long.class);
        assertThat(body(first).read("$.status", String.class)).isEqualTo("PENDING");

        JobQueue timeouts = delayq.queue("orders");
        assertThat(timeouts.get("order-" + paid + ":timeout")).isPresent().get()
                .satisfies(job -> assertThat(job.payloadUtf8()).isEqualTo("{\"orderId\":" + paid + "}"));

        HttpResponse<String> payment = send("POST", "/orders/" + paid + "/pay");
        assertThat(payment.statusCode()).isEqualTo(200);
        assertThat(body(payment).read("$.status", String.class)).isEqualTo("PAID");
        assertThat(timeouts.get("order-" + paid + ":timeout")).as("the paid order's time-out").isEmpty();

        // The unpaid order's time-out falls due now (an hour from now as the application set it: a paid order's time-out
        // never fires before the test pays it, however slow the machine is).
        assertThat(jobs.runDueNow("orders")).isEqualTo(1);
        jobs.awaitDrained("orders", WAIT); // run, and its completion acknowledged to Redis
        assertThat(status(unpaid)).isEqualTo("CANCELLED");
        assertThat(status(paid)).isEqualTo("PAID");
        assertThat(timeouts.get("order-" + unpaid + ":timeout")).get().extracting(job -> job.state()).isEqualTo(JobState.DONE);
        HttpResponse<String> late = send("POST", "/orders/" + unpaid + "/pay");
        assertThat(late.statusCode()).isEqualTo(409);
        assertThat(send("POST", "/orders/999999/pay").statusCode()).isEqualTo(404);

        QueueStats stats = timeouts.inspector().stats();
        assertThat(stats.done()).isEqualTo(1);
        assertThat(stats.scheduled() + stats.processing() + stats.dead()).isZero();
        assertThat(timeouts.inspector().check().problems()).isEmpty();

        // The rate limit of application.properties, and the recurring report's ticks.
        assertThat(timeouts.inspector().limits()).isEqualTo(Limits.rate(100, Duration.ofSeconds(1)));
        Awaitility.await().atMost(WAIT).until(() -> report.runs() >= 2);

        HttpResponse<String> health = send("GET", "/actuator/health/delayq");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(body(health).read("$.status", String.class)).isEqualTo("UP");
        assertThat(body(health).read("$.details.queues.orders.done", Long.class)).isEqualTo(1);
    }
}
