package dev.delayq.spring;

import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The outbox's part that differs on Spring Boot 4.0: the health types (module {@code spring-boot-health}).
 * {@link DelayqOutboxAutoConfiguration}, shared by both Boot lines, imports it; {@code delayq-spring-boot-starter} has
 * its own, of the same name, for Boot 3.5.
 */
@Configuration(proxyBeanMethods = false)
class DelayqOutboxBootLine {
    /** The {@code delayqOutbox} health contributor, when Boot's health module is there. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    static class Health {
        /**
         * Apart from the class check above: this condition's own class is in the health module (see DelayqBootLine).
         */
        @Configuration(proxyBeanMethods = false)
        @ConditionalOnEnabledHealthIndicator("delayq-outbox")
        static class Indicator {
            /** {@code management.health.delayq-outbox.enabled=false} turns it off. */
            @Bean
            @ConditionalOnMissingBean(name = "delayqOutboxHealthIndicator")
            DelayqOutboxHealthIndicator delayqOutboxHealthIndicator(DelayqOutboxRelay relay) {
                return new DelayqOutboxHealthIndicator(relay);
            }
        }
    }
}
