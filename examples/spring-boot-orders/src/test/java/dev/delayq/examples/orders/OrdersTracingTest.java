package dev.delayq.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.testkit.RedisServer;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One trace from an HTTP request to the handler of the job it enqueued: the application runs with Micrometer Tracing
 * over OpenTelemetry (test dependencies only; no tracing code in the application), its spans exported to OpenTelemetry's
 * in-memory exporter. {@code POST /orders} enqueues the order's payment time-out; when the time-out runs, the server
 * span, the enqueue span ("send orders") and the handler span ("process orders") are one trace: the enqueue below the
 * request (under the framework's own spans), the handler a child of the enqueue. Started as an application (not a
 * {@code @SpringBootTest}, which turns tracing off) on a private Redis.
 */
class OrdersTracingTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void theRequestTheEnqueueAndTheHandlerAreOneTrace() throws Exception {
        InMemorySpanExporter exporter = InMemorySpanExporter.create();
        try (RedisServer redis = RedisServer.start();
             ConfigurableApplicationContext app = new SpringApplicationBuilder(OrdersApplication.class)
                     .initializers(ctx -> ctx.getBeanFactory().registerSingleton("inMemorySpanExporter", exporter))
                     .run("--server.port=0", "--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + redis.port(),
                             "--management.tracing.sampling.probability=1.0", "--orders.payment-timeout=200ms",
                             "--orders.report-every=1h")) {
            int port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
            HttpResponse<String> created = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/orders")).POST(HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);

            Awaitility.await("the handler's span, exported").atMost(WAIT)
                    .until(() -> find(exporter.getFinishedSpanItems(), SpanKind.CONSUMER, "process orders").isPresent());
            List<SpanData> spans = exporter.getFinishedSpanItems();
            SpanData process = find(spans, SpanKind.CONSUMER, "process orders").orElseThrow();
            SpanData send = find(spans, SpanKind.PRODUCER, "send orders").orElseThrow();
            SpanData server = spans.stream().filter(s -> s.getKind() == SpanKind.SERVER && s.getName().contains("/orders"))
                    .findFirst().orElseThrow(() -> new AssertionError("no server span of POST /orders in " + names(spans)));

            assertThat(send.getTraceId()).as("the enqueue, in the request's trace").isEqualTo(server.getTraceId());
            assertThat(process.getTraceId()).as("the handler, in the request's trace").isEqualTo(server.getTraceId());
            assertThat(ancestors(spans, send)).as("the enqueue, under the request (maybe below the framework's spans)")
                    .contains(server.getSpanId());
            assertThat(process.getParentSpanId()).as("the handler, under the enqueue").isEqualTo(send.getSpanId());
            assertThat(process.getAttributes().asMap().toString()).contains("delayq.attempt=1", "queue=orders",
                    "outcome=success");
        }
    }

    private static Optional<SpanData> find(List<SpanData> spans, SpanKind kind, String name) {
        return spans.stream().filter(s -> s.getKind() == kind && s.getName().equals(name)).findFirst();
    }

    /** The span ids above {@code span}, nearest first, as far as the exported spans go. */
    private static List<String> ancestors(List<SpanData> spans, SpanData span) {
        java.util.Map<String, SpanData> byId = new java.util.HashMap<>();
        spans.forEach(s -> byId.put(s.getSpanId(), s));
        List<String> up = new java.util.ArrayList<>();
        for (SpanData s = byId.get(span.getParentSpanId()); s != null && up.size() < 50; s = byId.get(s.getParentSpanId())) {
            up.add(s.getSpanId());
        }
        return up;
    }

    private static List<String> names(List<SpanData> spans) {
        return spans.stream().map(s -> s.getKind() + " " + s.getName()).toList();
    }
}
