package dev.delayq.spring;

import dev.delayq.DelayQ;
import dev.delayq.ProducerMetrics;
import dev.delayq.WorkerMetrics;
import dev.delayq.micrometer.MicrometerMetrics;
import dev.delayq.micrometer.MicrometerProducerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.LazyInitializationExcludeFilter;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * delayq in a Spring Boot application: a {@link DelayQ} connected with Boot's Redis settings (or
 * {@code delayq.redis-url}), a {@link DelayqTemplate}, {@link DelayqListener} methods run as workers, and, when the
 * application has them, the {@code delayq} health indicator and Micrometer meters. Every bean yields to one the
 * application defines; {@code delayq.enabled=false} turns it all off.
 *
 * <p>The same on Spring Boot 3.5 and 4.0: what differs between the two (the Redis connection details type, Jackson 2
 * or 3, the health types) is in {@code DelayqBootLine}, one per artifact.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration",
        "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
        "org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration",
        "org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration",
        "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration",
        "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration"})
@ConditionalOnClass(DelayQ.class)
@ConditionalOnProperty(prefix = "delayq", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(DelayqProperties.class)
@Import(DelayqBootLine.class)
public class DelayqAutoConfiguration {
    /**
     * The client, connected at startup (an unreachable Redis fails the start unless
     * {@code delayq.require-redis-at-startup=false}) and closed with the context, after the workers. Only when the
     * application has no {@link DelayQ} of its own. Its enqueues report to the {@link ProducerMetrics} bean (by
     * default the producer meters in the application's {@link MeterRegistry}; an application's own {@link DelayQ}
     * reports where it was built to).
     */
    @Bean
    @ConditionalOnMissingBean({DelayqClient.class, DelayQ.class})
    public DelayqClient delayqClient(DelayqProperties properties, Environment environment,
                                     ObjectProvider<DelayqRedisSettingsSource> serviceConnection,
                                     ObjectProvider<SslBundles> bundles, ObjectProvider<ProducerMetrics> producerMetrics) {
        BootRedisProperties redis = BootRedisProperties.of(environment);
        DelayqConnection.Target target; // settings are checked now, whether Redis is reachable or not
        if (StringUtils.hasText(properties.getRedisUrl())) {
            target = DelayqConnection.fromUrl(properties, bundles.getIfAvailable());
        } else {
            DelayqRedisSettingsSource source = serviceConnection.getIfAvailable();
            RedisSettings settings = source == null ? null : source.settings();
            if (settings == null) {
                settings = PropertiesRedisSettings.read(redis, bundles.getIfAvailable());
            }
            target = DelayqConnection.fromDetails(properties, settings);
        }
        ProducerMetrics meters = producerMetrics.getIfUnique(() -> ProducerMetrics.NONE);
        return DelayqClient.connect(() -> DelayqConnection.connect(properties, redis, target, meters),
                properties.isRequireRedisAtStartup(), properties.getReconnectDelay());
    }

    /** The application's own {@link DelayQ}, for the starter's beans (declared after the one above: see its condition). */
    @Bean
    @ConditionalOnMissingBean
    public DelayqClient delayqClientOfApplication(DelayQ delayQ) {
        return DelayqClient.of(delayQ);
    }

    /**
     * The connected client as a bean of its own, created when first needed: with
     * {@code delayq.require-redis-at-startup=false} a bean that needs it before Redis is reached fails (inject
     * {@link DelayqTemplate} or {@code ObjectProvider<DelayQ>} instead). Closed by its {@link DelayqClient}.
     */
    @Bean(destroyMethod = "")
    @Lazy
    @ConditionalOnMissingBean
    public DelayQ delayQ(DelayqClient client) {
        return client.get();
    }

    /** The producer side: after-commit enqueues unless {@code delayq.producer.after-commit=false}. */
    @Bean
    @ConditionalOnMissingBean
    public DelayqTemplate delayqTemplate(DelayqClient client, DelayqPayloadConverter converter,
                                         DelayqProperties properties, ObjectProvider<DelayqOutboxWriter> outbox,
                                         ObjectProvider<DelayqObservations> observations) {
        return new DelayqTemplate(client, converter, properties.getProducer().isAfterCommit(), outbox.getIfAvailable())
                .observedBy(observations.getIfUnique(() -> DelayqObservations.NONE));
    }

    /** {@link DelayqListener} methods, unless {@code delayq.worker.enabled=false} (a producer-only application). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(prefix = "delayq.worker", name = "enabled", havingValue = "true", matchIfMissing = true)
    static class Workers {
        @Bean
        @ConditionalOnMissingBean
        static DelayqListenerBeanPostProcessor delayqListenerBeanPostProcessor() {
            return new DelayqListenerBeanPostProcessor();
        }

        /**
         * With {@code spring.main.lazy-initialization=true}, beans with listener methods are still created at
         * startup: a bean never created would never run its listeners.
         */
        @Bean
        static LazyInitializationExcludeFilter delayqListenerBeans() {
            return (name, definition, type) -> type != null && DelayqListenerBeanPostProcessor.hasListeners(type);
        }

        @Bean
        @ConditionalOnMissingBean
        DelayqWorkers delayqWorkers(DelayqClient client, DelayqProperties properties, DelayqListenerBeanPostProcessor listeners,
                                    DelayqPayloadConverter converter, ObjectProvider<WorkerMetrics> metrics,
                                    ConfigurableBeanFactory beanFactory, ObjectProvider<DelayqObservations> observations) {
            return new DelayqWorkers(client, properties, listeners, converter, metrics.getIfUnique(() -> WorkerMetrics.NONE),
                    beanFactory).observedBy(observations.getIfUnique(() -> DelayqObservations.NONE));
        }
    }

    /**
     * Observations of enqueues and listener runs in the application's {@link ObservationRegistry}, which Boot's tracing
     * turns into spans of one trace from the enqueue to the handler ({@link MicrometerObservations}).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ObservationRegistry.class)
    @ConditionalOnBean(ObservationRegistry.class)
    static class Observations {
        @Bean
        @ConditionalOnMissingBean
        DelayqObservations delayqObservations(ObservationRegistry registry) {
            return new MicrometerObservations(registry);
        }
    }

    /** Worker and producer meters in the application's {@link MeterRegistry}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({MeterRegistry.class, MicrometerMetrics.class})
    @ConditionalOnBean(MeterRegistry.class)
    static class Metrics {
        @Bean
        @ConditionalOnMissingBean
        WorkerMetrics delayqWorkerMetrics(MeterRegistry registry) {
            return new MicrometerMetrics(registry);
        }

        /** {@code delayq.jobs.enqueued}, {@code delayq.jobs.duplicates}, {@code delayq.enqueue.errors}, {@code .latency}. */
        @Bean
        @ConditionalOnMissingBean
        ProducerMetrics delayqProducerMetrics(MeterRegistry registry) {
            return new MicrometerProducerMetrics(registry);
        }
    }
}
