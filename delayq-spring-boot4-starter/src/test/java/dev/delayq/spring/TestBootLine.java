package dev.delayq.spring;

import java.util.Map;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.health.actuate.endpoint.HealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.IndicatedHealthDescriptor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.context.ApplicationContext;

/**
 * The types the shared tests need that have another name or package on Spring Boot 4.0 than on 3.5 (each Boot line's
 * test sources have a class of this name).
 */
final class TestBootLine {
    static final String VERSION = "4.0";
    static final Class<?> REDIS_AUTO_CONFIGURATION = DataRedisAutoConfiguration.class;
    static final Class<?> JACKSON_AUTO_CONFIGURATION = JacksonAutoConfiguration.class;
    static final Class<?> SSL_AUTO_CONFIGURATION = SslAutoConfiguration.class;
    static final Class<?> REDIS_CONNECTION_DETAILS = DataRedisConnectionDetails.class;
    /** The converter the application's own JSON mapper gives: Jackson 3's on Boot 4. */
    static final Class<? extends DelayqPayloadConverter> JSON_CONVERTER = Jackson3PayloadConverter.class;

    private TestBootLine() {
    }

    /** A health status and its details. */
    record HealthView(String status, Map<String, Object> details) {
    }

    /** A service connection's Redis details naming one server. */
    static Object redisDetails(String host, int port) {
        return new DataRedisConnectionDetails() {
            @Override
            public Standalone getStandalone() {
                return Standalone.of(host, port);
            }
        };
    }

    /** A health indicator that is always UP, as an application's own. */
    static Object upIndicator() {
        return (HealthIndicator) () -> Health.up().build();
    }

    /** The health of {@code path} ("" for the whole application) by the context's health endpoint. */
    static HealthView health(ApplicationContext ctx, String path) {
        HealthEndpoint endpoint = ctx.getBean(HealthEndpoint.class);
        HealthDescriptor h = path.isEmpty() ? endpoint.health() : endpoint.healthForPath(path);
        return new HealthView(h.getStatus().getCode(),
                h instanceof IndicatedHealthDescriptor indicated ? indicated.getDetails() : Map.of());
    }

    /** The health the context's {@code delayq} health indicator reports now. */
    static HealthView indicatorHealth(ApplicationContext ctx) {
        Health h = ((HealthIndicator) ctx.getBean("delayqHealthIndicator")).health();
        return new HealthView(h.getStatus().getCode(), h.getDetails());
    }
}
