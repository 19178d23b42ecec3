package dev.delayq.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.DelayQ;
import dev.delayq.DelayQConnectionException;
import dev.delayq.JobContext;
import dev.delayq.testkit.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

/**
 * An application whose Redis is unreachable at start-up: by default the start fails; with
 * {@code delayq.require-redis-at-startup=false} it starts with health DOWN and enqueues failing (and counted), and
 * once Redis is there delayq connects, the workers start and health is UP. Also the TLS hint under Spring.
 */
class DelayqStartupTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    static final Queue<String> RAN = new ConcurrentLinkedQueue<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class, TestBootLine.JACKSON_AUTO_CONFIGURATION));

    @Configuration(proxyBeanMethods = false)
    static class Listener {
        @DelayqListener(queue = "late")
        void on(String payload, JobContext ctx) {
            RAN.add(payload);
        }
    }

    @Test
    void withoutRedisTheAppStartsDownAndConnectsAndStartsItsWorkersWhenRedisComes() {
        int port = RedisServer.freePort();
        runner.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + port,
                        "delayq.require-redis-at-startup=false", "delayq.reconnect-delay=200ms", "delayq.timeout=2s")
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withUserConfiguration(Listener.class)
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    DelayqClient client = ctx.getBean(DelayqClient.class);
                    assertThat(client.connected()).isFalse();
                    TestBootLine.HealthView down = TestBootLine.indicatorHealth(ctx);
                    assertThat(down.status()).isEqualTo("DOWN");
                    assertThat(String.valueOf(down.details().get("error"))).contains("not connected to Redis yet");

                    DelayqTemplate template = ctx.getBean(DelayqTemplate.class);
                    assertThatThrownBy(() -> template.enqueue("late", "too early", Duration.ZERO))
                            .isInstanceOf(DelayQConnectionException.class)
                            .hasMessageContaining("delayq.require-redis-at-startup=false");
                    assertThatThrownBy(() -> ctx.getBean(DelayQ.class)).hasStackTraceContaining("not connected");

                    try (RedisServer redis = RedisServer.builder().port(port).start()) {
                        Awaitility.await().atMost(WAIT).until(client::connected);
                        template.enqueue("late", "on time", Duration.ZERO);
                        Awaitility.await().atMost(WAIT).until(() -> RAN.contains("on time"));
                        assertThat(ctx.getBean(DelayqWorkers.class).workers()).hasSize(1);
                        assertThat(TestBootLine.indicatorHealth(ctx).status()).isEqualTo("UP");
                        assertThat(ctx.getBean(DelayQ.class).server()).endsWith(":" + port);
                        ctx.getBean(DelayqWorkers.class).stop();
                        redis.kill();
                        assertThatThrownBy(() -> template.enqueue("late", "redis gone", Duration.ZERO))
                                .isInstanceOf(DelayQConnectionException.class);
                        MeterRegistry meters = ctx.getBean(MeterRegistry.class);
                        assertThat(meters.get("delayq.enqueue.errors").tag("queue", "late")
                                .tag("error", "DelayQConnectionException").counter().count()).isEqualTo(1);
                        assertThat(meters.get("delayq.jobs.enqueued").tag("queue", "late").counter().count()).isEqualTo(1);
                    }
                });
    }

    @Test
    void byDefaultAnUnreachableRedisFailsTheStart() {
        runner.withPropertyValues("spring.data.redis.port=" + RedisServer.freePort(), "delayq.timeout=2s")
                .run(ctx -> assertThat(ctx).getFailure().hasStackTraceContaining(DelayQConnectionException.class.getName()));
    }

    @Test
    void theTlsHintNamesTheSslBundleProperty() {
        try (RedisServer plain = RedisServer.start()) {
            runner.withPropertyValues("delayq.redis-url=rediss://127.0.0.1:" + plain.port(), "delayq.timeout=3s")
                    .run(ctx -> {
                        Throwable t = ctx.getStartupFailure();
                        while (t != null && !(t instanceof DelayQConnectionException)) {
                            t = t.getCause();
                        }
                        assertThat(t).as("the connection error").isNotNull()
                                .hasMessageContaining("TLS handshake")
                                .hasMessageContaining("spring.data.redis.ssl.bundle")
                                .hasMessageNotContaining("tlsTrustedCertificates");
                    });
        }
    }
}
