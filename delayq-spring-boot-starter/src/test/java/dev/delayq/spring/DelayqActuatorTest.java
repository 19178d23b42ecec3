package dev.delayq.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.testkit.RedisExtension;
import dev.delayq.testkit.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * With Actuator: the {@code delayq} health contributor is UP with the server and per-queue counts, DOWN while its
 * Redis is down and UP again after; the workers' meters are in the application's registry.
 */
@SpringBootTest(classes = DelayqActuatorTest.App.class, properties = {
        "management.endpoint.health.show-details=always", "delayq.timeout=2s"})
@DirtiesContext
class DelayqActuatorTest {
    /** A server of this class alone: the test stops it. */
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.dedicated(b -> { });
    private static final Duration WAIT = Duration.ofSeconds(30);

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry r) {
        r.add("delayq.redis-url", REDIS::uri);
        // Spring Data Redis (on the test class path) has a health indicator too: keep it on the test server.
        r.add("spring.data.redis.host", () -> "127.0.0.1");
        r.add("spring.data.redis.port", () -> REDIS.server().port());
    }

    @Autowired
    ApplicationContext context;

    @Autowired
    MeterRegistry registry;

    @Autowired
    DelayqTemplate template;

    @Autowired
    App app;

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        final AtomicInteger ran = new AtomicInteger();

        @DelayqListener(queue = "metered")
        void run(String payload) {
            ran.incrementAndGet();
        }
    }

    @Test
    void healthIsUpWithCountsThenDownWhileRedisIsDownAndMetersArePublished() {
        template.enqueue("metered", "now", Duration.ZERO);
        template.enqueue("metered", "later", Duration.ofHours(1));
        Awaitility.await().atMost(WAIT).until(() -> app.ran.get() == 1);

        Awaitility.await().atMost(WAIT).untilAsserted(() -> {
            TestBootLine.HealthView h = TestBootLine.health(context, "delayq");
            assertThat(h.status()).isEqualTo("UP");
            assertThat(h.details()).containsEntry("version", REDIS.server().info("server").get("redis_version"))
                    .containsEntry("server", REDIS.uri()).containsEntry("mode", "single");
            assertThat(h.details().get("queues")).isEqualTo(
                    Map.of("metered", Map.of("scheduled", 1L, "processing", 0L, "done", 1L, "dead", 0L)));
        });

        assertThat(registry.get("delayq.jobs.completed").tag("queue", "metered").counter().count()).isEqualTo(1.0);
        assertThat(registry.get("delayq.jobs.claimed").tag("queue", "metered").counter().count()).isEqualTo(1.0);
        assertThat(registry.get("delayq.dispatch.lag").tag("queue", "metered").timer().count()).isEqualTo(1);
        assertThat(registry.get("delayq.queue.depth").tag("queue", "metered").tag("state", "scheduled").gauge().value())
                .isEqualTo(1.0);

        RedisServer server = REDIS.server();
        server.kill();
        try {
            Awaitility.await().atMost(WAIT).untilAsserted(() -> {
                TestBootLine.HealthView h = TestBootLine.health(context, "delayq");
                assertThat(h.status()).isEqualTo("DOWN");
                assertThat(h.details()).containsKey("error");
            });
            assertThat(TestBootLine.health(context, "").status()).isEqualTo("DOWN");
        } finally {
            server.restart();
        }
        Awaitility.await().atMost(WAIT).until(() -> TestBootLine.health(context, "delayq").status().equals("UP"));
    }
}
