package dev.delayq.test.spring;

import dev.delayq.DelayQ;
import dev.delayq.test.DelayqTestJobs;
import dev.delayq.testkit.RedisServer;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Starts the private Redis of one application context, puts its address above every other property source and
 * registers the server and {@link DelayqTestJobs} as beans. Every instance is equal to every other: the annotation
 * has no attribute, so it does not split Spring's context cache.
 */
final class DelayqRedisContextCustomizer implements ContextCustomizer {
    /** The property source's name, as {@code /actuator/env} shows it. */
    static final String PROPERTY_SOURCE = "delayqTestRedis";
    private static final String SERVER_BEAN = "delayqTestRedisServer";

    @Override
    public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
        RedisServer server = RedisServer.start();
        String url = "redis://127.0.0.1:" + server.port();
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("delayq.redis-url", url);
        properties.put("delayq.cluster", "false");
        properties.put("spring.data.redis.url", url);
        properties.put("spring.data.redis.host", "127.0.0.1");
        properties.put("spring.data.redis.port", String.valueOf(server.port()));
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource(PROPERTY_SOURCE, properties));
        ConfigurableListableBeanFactory beans = context.getBeanFactory();
        beans.registerSingleton(SERVER_BEAN, server);
        beans.registerSingleton("delayqTestJobs", new DelayqTestJobs(() -> context.getBean(DelayQ.class)));
        // Registered before the application's beans, so destroyed after them: its workers hand their jobs back to a
        // running server first. (The test kit also stops it when the JVM exits.)
        if (beans instanceof DefaultSingletonBeanRegistry registry) {
            registry.registerDisposableBean(SERVER_BEAN, server::close);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o != null && o.getClass() == getClass();
    }

    @Override
    public int hashCode() {
        return getClass().hashCode();
    }
}
