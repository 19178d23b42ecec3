package dev.delayq.spring;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;

/**
 * Handlers on virtual threads when the application asks for them ({@code spring.threads.virtual.enabled=true}, as
 * Boot's own executors do) and the JVM has them (Java 21 and later; delayq is built for Java 17, so the executor is
 * looked up, not linked). A worker still runs at most its concurrency of handlers at once.
 */
final class VirtualThreads {
    private static final Logger LOG = LoggerFactory.getLogger(VirtualThreads.class);

    private VirtualThreads() {
    }

    /** A virtual thread per task executor when enabled and available, else null (the workers' own threads). */
    static ExecutorService executorIf(ConfigurableBeanFactory beanFactory) {
        String enabled = beanFactory.resolveEmbeddedValue("${spring.threads.virtual.enabled:false}");
        if (!"true".equalsIgnoreCase(enabled == null ? "" : enabled.trim())) {
            return null;
        }
        if (Runtime.version().feature() < 21) {
            LOG.warn("delayq: spring.threads.virtual.enabled is true but Java {} has no virtual threads (Java 21 and "
                    + "later): handlers run on the workers' own threads", Runtime.version().feature());
            return null;
        }
        try {
            return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("virtual threads are not available on Java " + Runtime.version(), e);
        }
    }
}
