package dev.delayq.spring;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What differs on Spring Boot 3.5 (this artifact, {@code delayq-spring-boot-starter}): Boot's Redis connection
 * details type, Jackson 2 for typed payloads, and Actuator's health types. {@link DelayqAutoConfiguration}, shared by
 * both Boot lines, imports it; {@code delayq-spring-boot4-starter} has its own, of the same name.
 */
@Configuration(proxyBeanMethods = false)
class DelayqBootLine {
    /** The Boot versions this artifact runs on, as a start-up failure names them. */
    static final String SUPPORTED = "Spring Boot 3.5.x (delayq-spring-boot-starter; on Spring Boot 4.0.x use delayq-spring-boot4-starter)";

    /** Whether this artifact runs on Boot {@code version}. */
    static boolean supports(String version) {
        return version.startsWith("3.5.");
    }

    /** Boot's own connection details, made from {@code spring.data.redis.*}: delayq reads the properties instead. */
    private static final String BOOT_PROPERTIES_DETAILS =
            "org.springframework.boot.autoconfigure.data.redis.PropertiesRedisConnectionDetails";

    /** The settings of a service connection's Redis details, or null when there is none. */
    static RedisSettings serviceConnection(ObjectProvider<RedisConnectionDetails> provider) {
        RedisConnectionDetails d = provider.getIfAvailable();
        if (d == null || d.getClass().getName().equals(BOOT_PROPERTIES_DETAILS)) {
            return null;
        }
        RedisConnectionDetails.Sentinel s = d.getSentinel();
        RedisConnectionDetails.Cluster c = d.getCluster();
        RedisConnectionDetails.Standalone one = d.getStandalone();
        SslBundle ssl = s != null ? s.getSslBundle() : c != null ? c.getSslBundle() : one.getSslBundle();
        return new RedisSettings(d.getUsername(), d.getPassword(),
                new RedisSettings.Standalone(one.getHost(), one.getPort(), one.getDatabase()),
                s == null ? null : new RedisSettings.Sentinel(s.getDatabase(), s.getMaster(),
                        s.getNodes().stream().map(n -> new RedisSettings.Node(n.host(), n.port())).toList(),
                        s.getUsername(), s.getPassword()),
                c == null ? null : new RedisSettings.Cluster(
                        c.getNodes().stream().map(n -> new RedisSettings.Node(n.host(), n.port())).toList()),
                ssl);
    }

    /** A service connection's details, when Boot's Redis auto-configuration is on the class path. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails")
    static class ServiceConnection {
        @Bean
        DelayqRedisSettingsSource delayqServiceConnection(ObjectProvider<RedisConnectionDetails> details) {
            return () -> serviceConnection(details);
        }
    }

    /** Payloads as JSON through the application's Jackson 2 {@code ObjectMapper}. */
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
            DelayqHealthIndicator delayqHealthIndicator(DelayqClient client) {
                return new DelayqHealthIndicator(client);
            }
        }
    }
}
