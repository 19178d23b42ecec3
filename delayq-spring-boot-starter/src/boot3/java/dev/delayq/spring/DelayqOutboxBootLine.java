package dev.delayq.spring;

import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The outbox's part that differs on Spring Boot 3.5: Actuator's health types. {@link DelayqOutboxAutoConfiguration},
 * shared by both Boot lines, imports it; {@code delayq-spring-boot4-starter} has its own, of the same name.
 */
@Configuration(proxyBeanMethods = false)
class DelayqOutboxBootLine {
    /** The {@code delayqOutbox} health contributor, when Actuator is there. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
    static class Health {
        /** Apart from the class check above: this condition's own class is in Actuator (see DelayqBootLine). */
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
