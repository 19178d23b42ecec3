package dev.delayq.spring;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What differs on Spring Boot 4.0 (this artifact, {@code delayq-spring-boot4-starter}): Boot's Redis connection
 * details type (module {@code spring-boot-data-redis}), Jackson 3 ({@code tools.jackson}) for typed payloads, and the
 * health types (module {@code spring-boot-health}). {@link DelayqAutoConfiguration}, shared by both Boot lines,
 * imports it; {@code delayq-spring-boot-starter} has its own, of the same name, for Boot 3.5.
 */
@Configuration(proxyBeanMethods = false)
class DelayqBootLine {
    /** The Boot versions this artifact runs on, as a start-up failure names them. */
    static final String SUPPORTED = "Spring Boot 4.0.x (delayq-spring-boot4-starter; on Spring Boot 3.5.x use delayq-spring-boot-starter)";

    /** Whether this artifact runs on Boot {@code version}. */
    static boolean supports(String version) {
        return version.startsWith("4.0.");
    }

    /** A service connection's details, when Boot's Redis module is on the class path. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails")
    static class ServiceConnection {
        /** Boot's own connection details, made from {@code spring.data.redis.*}: delayq reads the properties instead. */
        private static final String BOOT_PROPERTIES_DETAILS =
                "org.springframework.boot.data.redis.autoconfigure.PropertiesDataRedisConnectionDetails";

        @Bean
        DelayqRedisSettingsSource delayqServiceConnection(ObjectProvider<DataRedisConnectionDetails> details) {
            return () -> settings(details.getIfAvailable());
        }

        private static RedisSettings settings(DataRedisConnectionDetails d) {
            if (d == null || d.getClass().getName().equals(BOOT_PROPERTIES_DETAILS)) {
                return null;
            }
            DataRedisConnectionDetails.Sentinel s = d.getSentinel();
            DataRedisConnectionDetails.Cluster c = d.getCluster();
            DataRedisConnectionDetails.Standalone one = d.getStandalone();
            return new RedisSettings(d.getUsername(), d.getPassword(),
                    one == null ? null : new RedisSettings.Standalone(one.getHost(), one.getPort(), one.getDatabase()),
                    s == null ? null : new RedisSettings.Sentinel(s.getDatabase(), s.getMaster(),
                            s.getNodes().stream().map(n -> new RedisSettings.Node(n.host(), n.port())).toList(),
                            s.getUsername(), s.getPassword()),
                    c == null ? null : new RedisSettings.Cluster(
                            c.getNodes().stream().map(n -> new RedisSettings.Node(n.host(), n.port())).toList()),
                    d.getSslBundle());
        }
    }

    /** Payloads as JSON through the application's Jackson 3 mapper (Boot 4's default). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "tools.jackson.databind.ObjectMapper")
    static class Jackson3Payloads {
        @Bean
        @ConditionalOnMissingBean
        DelayqPayloadConverter delayqPayloadConverter(ObjectProvider<tools.jackson.databind.ObjectMapper> mapper) {
            return new Jackson3PayloadConverter(mapper.getIfUnique(tools.jackson.databind.json.JsonMapper::new));
        }
    }

    /** Without Jackson 3 but with Jackson 2 (Boot 4's {@code spring-boot-jackson2}): JSON through Jackson 2. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass("tools.jackson.databind.ObjectMapper")
    @ConditionalOnClass(name = "com.fasterxml.jackson.databind.ObjectMapper")
    static class Jackson2Payloads {
        @Bean
        @ConditionalOnMissingBean
        DelayqPayloadConverter delayqPayloadConverter(ObjectProvider<com.fasterxml.jackson.databind.ObjectMapper> mapper) {
            return new JacksonPayloadConverter(mapper.getIfUnique(com.fasterxml.jackson.databind.ObjectMapper::new));
        }
    }

    /** Without Jackson: String and byte[] payloads only. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass({"tools.jackson.databind.ObjectMapper", "com.fasterxml.jackson.databind.ObjectMapper"})
    static class PlainPayloads {
        @Bean
        @ConditionalOnMissingBean
        DelayqPayloadConverter delayqPayloadConverter() {
            return new PlainPayloadConverter();
        }
    }

    /** The {@code delayq} health indicator, when Boot's health module is there (with Actuator). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    static class Health {
        /**
         * Apart from the class check above: this condition's own class is in the health module, and a
         * configuration's conditions are all loaded before any is evaluated.
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
