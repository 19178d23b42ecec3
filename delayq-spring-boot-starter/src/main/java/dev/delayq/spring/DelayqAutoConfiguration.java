package dev.delayq.spring;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.delayq.DelayQ;
import dev.delayq.WorkerMetrics;
import dev.delayq.micrometer.MicrometerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.LazyInitializationExcludeFilter;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails;
import org.springframework.boot.autoconfigure.data.redis.RedisProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.StringUtils;

/**
 * delayq in a Spring Boot application: a {@link DelayQ} connected with Boot's Redis settings (or
 * {@code delayq.redis-url}), a {@link DelayqTemplate}, {@link DelayqListener} methods run as workers, and, when the
 * application has them, the {@code delayq} health indicator and Micrometer meters. Every bean yields to one the
 * application defines; {@code delayq.enabled=false} turns it all off.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration",
        "org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration",
        "org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration"})
@ConditionalOnClass(DelayQ.class)
@ConditionalOnProperty(prefix = "delayq", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties({DelayqProperties.class, RedisProperties.class})
public class DelayqAutoConfiguration {
    /** Boot's own connection details, made from {@code spring.data.redis.*}: read from the properties instead. */
    private static final String BOOT_PROPERTIES_DETAILS =
            "org.springframework.boot.autoconfigure.data.redis.PropertiesRedisConnectionDetails";

    /**
     * The client, connected at startup (an unreachable Redis fails the start) and closed with the context, after
     * the workers.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public DelayQ delayQ(DelayqProperties properties, RedisProperties redis, ObjectProvider<RedisConnectionDetails> details,
                         ObjectProvider<SslBundles> bundles) {
        DelayqConnection.Target target;
        if (StringUtils.hasText(properties.getRedisUrl())) {
            target = DelayqConnection.fromUrl(properties, bundles.getIfAvailable());
        } else {
            RedisConnectionDetails d = details.getIfAvailable();
            if (d == null || d.getClass().getName().equals(BOOT_PROPERTIES_DETAILS)) {
                d = new PropertiesRedisDetails(redis, bundles.getIfAvailable());
            }
            target = DelayqConnection.fromDetails(properties, d);
        }
        return DelayqConnection.connect(properties, target);
    }

    /** The producer side. */
    @Bean
    @ConditionalOnMissingBean
    public DelayqTemplate delayqTemplate(DelayQ delayQ, DelayqPayloadConverter converter) {
        return new DelayqTemplate(delayQ, converter);
    }

    /** Payloads as JSON through the application's {@code ObjectMapper}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ObjectMapper.class)
    static class JacksonPayloads {
        @Bean
        @ConditionalOnMissingBean
        DelayqPayloadConverter delayqPayloadConverter(ObjectProvider<ObjectMapper> mapper) {
            return new JacksonPayloadConverter(mapper.getIfUnique(ObjectMapper::new));
        }
    }

    /** Without Jackson: String and byte[] payloads only. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass("com.fasterxml.jackson.databind.ObjectMapper")
    static class PlainPayloads {
        @Bean
        @ConditionalOnMissingBean
        DelayqPayloadConverter delayqPayloadConverter() {
            return new PlainPayloadConverter();
        }
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
        DelayqWorkers delayqWorkers(DelayQ delayQ, DelayqProperties properties, DelayqListenerBeanPostProcessor listeners,
                                    DelayqPayloadConverter converter, ObjectProvider<WorkerMetrics> metrics,
                                    ConfigurableBeanFactory beanFactory) {
            return new DelayqWorkers(delayQ, properties, listeners, converter, metrics.getIfUnique(() -> WorkerMetrics.NONE),
                    beanFactory);
        }
    }

    /** Worker meters in the application's {@link MeterRegistry}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({MeterRegistry.class, MicrometerMetrics.class})
    @ConditionalOnBean(MeterRegistry.class)
    static class Metrics {
        @Bean
        @ConditionalOnMissingBean
        WorkerMetrics delayqWorkerMetrics(MeterRegistry registry) {
            return new MicrometerMetrics(registry);
        }
    }

    /** The {@code delayq} health indicator, when Actuator is there. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
    static class Health {
        /**
         * Apart from the class check above: this condition's own class is in Actuator, and a configuration's
         * conditions are all loaded before any is evaluated.
         */
        @Configuration(proxyBeanMethods = false)
        @ConditionalOnEnabledHealthIndicator("delayq")
        static class Indicator {
            /** {@code management.health.delayq.enabled=false} turns it off. */
            @Bean
            @ConditionalOnMissingBean(name = "delayqHealthIndicator")
            DelayqHealthIndicator delayqHealthIndicator(DelayQ delayQ) {
                return new DelayqHealthIndicator(delayQ);
            }
        }
    }
}
