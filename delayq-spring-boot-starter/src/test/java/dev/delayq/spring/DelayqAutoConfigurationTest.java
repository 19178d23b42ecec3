package dev.delayq.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.Bounds;
import dev.delayq.DelayQ;
import dev.delayq.DelayQConnectionException;
import dev.delayq.JobContext;
import dev.delayq.Worker;
import dev.delayq.WorkerMetrics;
import dev.delayq.micrometer.MicrometerMetrics;
import dev.delayq.testkit.RedisExtension;
import dev.delayq.testkit.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Every condition of {@link DelayqAutoConfiguration}, against a real Redis. */
class DelayqAutoConfigurationTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class, TestBootLine.JACKSON_AUTO_CONFIGURATION));

    /** Boot's Redis settings pointing at the test server, and a key prefix of this test. */
    private ApplicationContextRunner onTestRedis() {
        return runner.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + REDIS.server().port(),
                "delayq.prefix=" + REDIS.prefix());
    }

    /** Neither Jackson 2 nor Jackson 3. */
    private static FilteredClassLoader withoutJackson() {
        return new FilteredClassLoader("com.fasterxml.jackson.databind", "tools.jackson.databind");
    }

    private static String closedPort() {
        return String.valueOf(RedisServer.freePort());
    }

    private long keysIn(int database) {
        String line = REDIS.server().info("keyspace").get("db" + database);
        return line == null ? 0 : Long.parseLong(line.substring(5, line.indexOf(',')));
    }

    @Test
    void connectsWithBootsRedisPropertiesAndCreatesEveryBean() {
        long before = keysIn(3);
        onTestRedis().withPropertyValues("spring.data.redis.database=3").run(ctx -> {
            assertThat(ctx).hasSingleBean(DelayQ.class).hasSingleBean(DelayqTemplate.class)
                    .hasSingleBean(DelayqWorkers.class).hasSingleBean(DelayqListenerBeanPostProcessor.class)
                    .hasSingleBean(DelayqHealthIndicator.class).doesNotHaveBean(WorkerMetrics.class);
            assertThat(ctx.getBean(DelayqPayloadConverter.class)).isInstanceOf(TestBootLine.JSON_CONVERTER);
            DelayqTemplate template = ctx.getBean(DelayqTemplate.class);
            assertThat(template.enqueue("q", new Order(1, "pen"), Duration.ofHours(1)).created()).isTrue();
            assertThat(ctx.getBean(DelayQ.class).prefix()).isEqualTo(REDIS.prefix());
        });
        assertThat(keysIn(3)).as("keys in database 3").isGreaterThan(before);
    }

    @Test
    void thePayloadLimitIsTheCoresUnlessSet() {
        onTestRedis().run(ctx -> {
            assertThat(ctx.getBean(DelayQ.class).maxPayloadBytes()).isEqualTo(Bounds.DEFAULT_MAX_PAYLOAD);
            DelayqTemplate template = ctx.getBean(DelayqTemplate.class);
            assertThat(template.enqueue("q", new byte[Bounds.DEFAULT_MAX_PAYLOAD], Duration.ofHours(1)).created()).isTrue();
            assertThatThrownBy(() -> template.enqueue("q", new byte[Bounds.DEFAULT_MAX_PAYLOAD + 1], Duration.ofHours(1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is " + (Bounds.DEFAULT_MAX_PAYLOAD + 1) + " bytes: the limit is "
                            + Bounds.DEFAULT_MAX_PAYLOAD + " bytes");
        });
        onTestRedis().withPropertyValues("delayq.max-payload-size=1MB")
                .run(ctx -> assertThat(ctx.getBean(DelayQ.class).maxPayloadBytes()).isEqualTo(1024 * 1024));
    }

    @Test
    void readsSpringDataRedisUrlThroughBootsRedisAutoConfiguration() {
        long before = keysIn(4);
        runner.withConfiguration(AutoConfigurations.of(TestBootLine.REDIS_AUTO_CONFIGURATION))
                .withPropertyValues("spring.data.redis.url=redis://127.0.0.1:" + REDIS.server().port() + "/4",
                        "delayq.prefix=" + REDIS.prefix())
                .run(ctx -> {
                    assertThat(ctx).hasSingleBean(TestBootLine.REDIS_CONNECTION_DETAILS).hasSingleBean(DelayQ.class);
                    ctx.getBean(DelayqTemplate.class).enqueue("q", "x", Duration.ofHours(1));
                });
        assertThat(keysIn(4)).as("keys in database 4").isGreaterThan(before);
    }

    @Test
    void connectionDetailsOfAServiceConnectionWinOverTheProperties() {
        Object details = TestBootLine.redisDetails("127.0.0.1", REDIS.server().port());
        @SuppressWarnings("unchecked")
        Class<Object> type = (Class<Object>) TestBootLine.REDIS_CONNECTION_DETAILS;
        runner.withBean(type, () -> details)
                .withPropertyValues("spring.data.redis.port=" + closedPort(), "delayq.prefix=" + REDIS.prefix())
                .run(ctx -> assertThat(ctx.getBean(DelayQ.class).server()).endsWith(":" + REDIS.server().port()));
    }

    @Test
    void delayqRedisUrlWinsOverBootsRedisSettings() {
        runner.withPropertyValues("spring.data.redis.port=" + closedPort(), "delayq.redis-url=" + REDIS.uri(),
                        "delayq.prefix=" + REDIS.prefix())
                .run(ctx -> assertThat(ctx.getBean(DelayQ.class).server()).isEqualTo(REDIS.uri()));
    }

    @Test
    void disabledCreatesNothingAndConnectsNowhere() {
        runner.withPropertyValues("delayq.enabled=false", "spring.data.redis.port=" + closedPort())
                .withUserConfiguration(TextListener.class)
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    assertThat(ctx).doesNotHaveBean(DelayQ.class).doesNotHaveBean(DelayqTemplate.class)
                            .doesNotHaveBean(DelayqWorkers.class).doesNotHaveBean(DelayqListenerBeanPostProcessor.class)
                            .doesNotHaveBean(DelayqHealthIndicator.class).doesNotHaveBean(DelayqPayloadConverter.class);
                });
    }

    @Test
    void workersDisabledLeavesAProducer() {
        onTestRedis().withPropertyValues("delayq.worker.enabled=false").withUserConfiguration(TextListener.class)
                .run(ctx -> {
                    assertThat(ctx).hasSingleBean(DelayQ.class).hasSingleBean(DelayqTemplate.class)
                            .doesNotHaveBean(DelayqWorkers.class).doesNotHaveBean(DelayqListenerBeanPostProcessor.class);
                });
    }

    @Test
    void listenersRunUnderLazyInitializationToo() {
        onTestRedis().withUserConfiguration(TextListener.class)
                .withInitializer(ctx -> ctx.addBeanFactoryPostProcessor(new LazyInitializationBeanFactoryPostProcessor()))
                .run(ctx -> assertThat(ctx.getBean(DelayqWorkers.class).workers()).extracting(Worker::queue)
                        .containsExactly("text"));
    }

    @Test
    void withoutDelayqOnTheClassPathNothingIsConfigured() {
        runner.withClassLoader(new FilteredClassLoader(DelayQ.class))
                .withPropertyValues("spring.data.redis.port=" + closedPort())
                .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean(DelayqTemplate.class)
                        .doesNotHaveBean(DelayqWorkers.class));
    }

    @Test
    void withoutActuatorThereIsNoHealthIndicatorAndTheRestWorks() {
        onTestRedis().withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate",
                        "org.springframework.boot.health"))
                .run(ctx -> assertThat(ctx).hasNotFailed().hasSingleBean(DelayQ.class).hasSingleBean(DelayqWorkers.class)
                        .doesNotHaveBean(DelayqHealthIndicator.class));
    }

    @Test
    void theHealthIndicatorCanBeTurnedOff() {
        onTestRedis().withPropertyValues("management.health.delayq.enabled=false")
                .run(ctx -> assertThat(ctx).hasSingleBean(DelayQ.class).doesNotHaveBean(DelayqHealthIndicator.class));
    }

    @Test
    void aMeterRegistryGetsTheWorkerMetersAndWithoutMicrometerThereAreNone() {
        onTestRedis().withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .run(ctx -> assertThat(ctx.getBean(WorkerMetrics.class)).isInstanceOf(MicrometerMetrics.class));
        onTestRedis().withClassLoader(new FilteredClassLoader("io.micrometer"))
                .run(ctx -> assertThat(ctx).hasNotFailed().hasSingleBean(DelayqWorkers.class)
                        .doesNotHaveBean(WorkerMetrics.class));
    }

    @Test
    void withoutJacksonStringAndBytesStillWorkAndAnObjectListenerFailsTheStartSayingWhy() {
        onTestRedis().withClassLoader(withoutJackson()).withUserConfiguration(TextListener.class)
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    DelayqTemplate template = ctx.getBean(DelayqTemplate.class);
                    assertThat(template.enqueue("q", "text", Duration.ofHours(1)).created()).isTrue();
                    assertThatThrownBy(() -> template.enqueue("q", new Order(1, "pen"), Duration.ofHours(1)))
                            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs Jackson");
                });
        onTestRedis().withClassLoader(withoutJackson()).withUserConfiguration(OrderListener.class)
                .run(ctx -> assertThat(ctx).getFailure().rootCause()
                        .hasMessageContaining("OrderListener.on").hasMessageContaining(Order.class.getName())
                        .hasMessageContaining("String or byte[]"));
    }

    @Test
    void beansOfTheApplicationWin() {
        onTestRedis().withUserConfiguration(OwnBeans.class).run(ctx -> {
            OwnBeans own = ctx.getBean(OwnBeans.class);
            assertThat(ctx.getBean(DelayQ.class)).isSameAs(own.delayQ);
            assertThat(ctx.getBean(DelayQ.class).prefix()).isEqualTo(REDIS.prefix() + "-own");
            assertThat(ctx.getBean(DelayqPayloadConverter.class)).isSameAs(own.converter);
            assertThat(ctx.getBean(WorkerMetrics.class)).isSameAs(WorkerMetrics.NONE);
            assertThat(ctx.getBean("delayqHealthIndicator")).isSameAs(own.health);
            assertThat(ctx.getBean(DelayqTemplate.class)).isSameAs(ctx.getBean("ownTemplate"));
            assertThat(ctx.getBean(DelayqTemplate.class).delayQ()).isSameAs(own.delayQ);
            assertThat(ctx.getBean(DelayqClient.class).get()).as("the client the workers and health use")
                    .isSameAs(own.delayQ);
        });
    }

    @Test
    void anInvalidSettingFailsTheStartNamingIt() {
        onTestRedis().withPropertyValues("delayq.prefix=no spaces")
                .run(ctx -> assertThat(ctx).getFailure().rootCause().hasMessageContaining("prefix"));
        onTestRedis().withPropertyValues("delayq.worker.concurrency=0").withUserConfiguration(TextListener.class)
                .run(ctx -> assertThat(ctx).getFailure()
                        .hasStackTraceContaining("@DelayqListener TextListener.on on queue 'text': "
                                + "concurrency is 0"));
        onTestRedis().withPropertyValues("test.concurrency=many").withUserConfiguration(PlaceholderListener.class)
                .run(ctx -> assertThat(ctx).getFailure().hasStackTraceContaining(
                        "@DelayqListener PlaceholderListener.on: concurrency '${test.concurrency}' (resolved to 'many') "
                                + "is not a whole number"));
        onTestRedis().withPropertyValues("test.lease=soon").withUserConfiguration(LeasePlaceholderListener.class)
                .run(ctx -> assertThat(ctx).getFailure().hasStackTraceContaining(
                        "@DelayqListener LeasePlaceholderListener.on: leaseDuration '${test.lease}' (resolved to 'soon') "
                                + "is not a duration: use a number with ms, s, m, h or d (250ms, 30s, 5m, 2h, 7d, 1h30m) "
                                + "or ISO-8601 (PT30S)"));
        onTestRedis().withUserConfiguration(TwoPayloads.class)
                .run(ctx -> assertThat(ctx).getFailure().rootCause().hasMessageContaining("more than one payload"));
        onTestRedis().withUserConfiguration(ParentResultsAsList.class)
                .run(ctx -> assertThat(ctx).getFailure().rootCause().hasMessageStartingWith(
                        "@DelayqListener ParentResultsAsList.on has a @DelayqParentResults parameter of type "
                                + "java.util.List<java.lang.String>").hasMessageEndingWith(
                        ": take a Map<String, T> (parent id to its result)"));
    }

    @Test
    void twoListenersOfOneQueueFailTheStartNamingBoth() {
        onTestRedis().withUserConfiguration(OrderJobs.class, AuditJobs.class)
                .run(ctx -> assertThat(ctx).getFailure().rootCause().isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("two @DelayqListener methods consume queue 'orders': OrderJobs.onOrder and "
                                + "AuditJobs.onAny; give each its own queue, or each its own job name (name = \"...\")"));
        // The same queue by a placeholder.
        onTestRedis().withPropertyValues("test.queue=orders")
                .withUserConfiguration(OrderJobs.class, QueueByPlaceholder.class)
                .run(ctx -> assertThat(ctx).getFailure().rootCause()
                        .hasMessageStartingWith("two @DelayqListener methods consume queue 'orders': OrderJobs.onOrder "
                                + "and QueueByPlaceholder.on;"));
        // One listener class as two beans: the bean names tell them apart.
        onTestRedis().withBean("orderJobs", OrderJobs.class).withBean("moreOrderJobs", OrderJobs.class)
                .run(ctx -> assertThat(ctx).getFailure().rootCause()
                        .hasMessageStartingWith("two @DelayqListener methods consume queue 'orders': OrderJobs.onOrder "
                                + "(bean 'orderJobs') and OrderJobs.onOrder (bean 'moreOrderJobs');"));
        // Other queues, and a placeholder resolving elsewhere, start.
        onTestRedis().withPropertyValues("test.queue=audit")
                .withUserConfiguration(OrderJobs.class, QueueByPlaceholder.class, TextListener.class)
                .run(ctx -> assertThat(ctx.getBean(DelayqWorkers.class).workers()).extracting(Worker::queue)
                        .containsExactlyInAnyOrder("orders", "audit", "text"));
    }

    @Test
    void anUnreachableRedisFailsTheStart() {
        runner.withPropertyValues("spring.data.redis.port=" + closedPort(), "delayq.timeout=2s")
                .run(ctx -> assertThat(ctx).getFailure().hasStackTraceContaining(DelayQConnectionException.class.getName()));
    }

    @Test
    void sentinelNodesWithTheirOwnPasswordAreRefusedSayingWhy() {
        runner.withPropertyValues("spring.data.redis.sentinel.master=jobs", "spring.data.redis.sentinel.nodes=127.0.0.1:1",
                        "spring.data.redis.sentinel.password=secret")
                .run(ctx -> assertThat(ctx).getFailure().rootCause()
                        .hasMessageContaining("spring.data.redis.sentinel.username/password"));
    }

    @Configuration(proxyBeanMethods = false)
    static class TextListener {
        @DelayqListener(queue = "text")
        void on(String text) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OrderListener {
        @DelayqListener(queue = "orders")
        void on(Order order, JobContext job) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PlaceholderListener {
        @DelayqListener(queue = "text", concurrency = "${test.concurrency}")
        void on(String text) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class LeasePlaceholderListener {
        @DelayqListener(queue = "text", leaseDuration = "${test.lease}")
        void on(String text) {
        }
    }

    static class OrderJobs {
        @DelayqListener(queue = "orders")
        void onOrder(Order order) {
        }
    }

    static class AuditJobs {
        @DelayqListener("orders")
        void onAny(JobContext job) {
        }
    }

    static class QueueByPlaceholder {
        @DelayqListener(queue = "${test.queue}")
        void on(String text) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoPayloads {
        @DelayqListener(queue = "text")
        void on(String text, byte[] bytes) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ParentResultsAsList {
        @DelayqListener(queue = "text")
        void on(String text, @DelayqParentResults java.util.List<String> results) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnBeans {
        final DelayQ delayQ = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix() + "-own").build();
        final DelayqPayloadConverter converter = new PlainPayloadConverter();
        final Object health = TestBootLine.upIndicator();

        @Bean
        DelayQ ownDelayQ() {
            return delayQ;
        }

        @Bean
        DelayqPayloadConverter ownConverter() {
            return converter;
        }

        @Bean
        WorkerMetrics ownMetrics() {
            return WorkerMetrics.NONE;
        }

        @Bean
        Object delayqHealthIndicator() {
            return health;
        }

        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

        @Bean
        DelayqTemplate ownTemplate(DelayQ delayQ) {
            return new DelayqTemplate(delayQ, converter);
        }
    }
}
