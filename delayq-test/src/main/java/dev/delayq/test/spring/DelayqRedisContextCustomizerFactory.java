package dev.delayq.test.spring;

import java.util.List;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;

/** Gives the contexts of test classes annotated {@link AutoConfigureDelayqRedis} their private Redis. */
final class DelayqRedisContextCustomizerFactory implements ContextCustomizerFactory {
    @Override
    public ContextCustomizer createContextCustomizer(Class<?> testClass, List<ContextConfigurationAttributes> attributes) {
        return TestContextAnnotationUtils.hasAnnotation(testClass, AutoConfigureDelayqRedis.class)
                ? new DelayqRedisContextCustomizer() : null;
    }
}
