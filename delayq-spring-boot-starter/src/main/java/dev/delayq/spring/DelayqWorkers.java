package dev.delayq.spring;

import dev.delayq.DelayQ;
import dev.delayq.RetryPolicy;
import dev.delayq.Worker;
import dev.delayq.WorkerMetrics;
import dev.delayq.internal.present.DurationText;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.util.StringUtils;

/**
 * Runs every {@link DelayqListener} method as a {@link Worker}: built and started when the context is ready,
 * closed gracefully on shutdown (all at once, each stops claiming, lets running handlers finish within its
 * shutdown grace and hands the rest back), before the {@link DelayQ} bean they use is closed.
 *
 * <p>It stops in the first shutdown phase, before the web server's graceful shutdown, so requests still being
 * served can enqueue until the end.
 */
public class DelayqWorkers implements SmartLifecycle, DisposableBean {
    private static final Logger LOG = LoggerFactory.getLogger(DelayqWorkers.class);

    private final DelayQ delayQ;
    private final DelayqProperties properties;
    private final DelayqListenerBeanPostProcessor listeners;
    private final DelayqPayloadConverter converter;
    private final WorkerMetrics metrics;
    private final ConfigurableBeanFactory beanFactory;
    private final List<Worker> workers = new ArrayList<>();
    private volatile boolean running;

    /**
     * Workers for the listeners found by {@code listeners}, on {@code delayQ}.
     *
     * @param metrics     where the workers' measurements go ({@link WorkerMetrics#NONE} for nowhere)
     * @param beanFactory resolves {@code ${...}} placeholders of the listener attributes
     */
    public DelayqWorkers(DelayQ delayQ, DelayqProperties properties, DelayqListenerBeanPostProcessor listeners,
                         DelayqPayloadConverter converter, WorkerMetrics metrics, ConfigurableBeanFactory beanFactory) {
        this.delayQ = delayQ;
        this.properties = properties;
        this.listeners = listeners;
        this.converter = converter;
        this.metrics = metrics;
        this.beanFactory = beanFactory;
    }

    /**
     * Builds and starts a worker per listener method.
     *
     * @throws IllegalArgumentException naming the listener and the attribute that is invalid, or the two listeners of
     *                                  one queue (nothing stays started)
     */
    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        Map<String, DelayqListenerBeanPostProcessor.Endpoint> byQueue = byQueue(listeners.endpoints());
        try {
            for (Map.Entry<String, DelayqListenerBeanPostProcessor.Endpoint> q : byQueue.entrySet()) {
                DelayqListenerBeanPostProcessor.Endpoint e = q.getValue();
                Worker w = build(e, q.getKey());
                workers.add(w);
                w.start();
                LOG.info("delayq: {} runs the jobs of queue '{}' (worker {})", e.describe(), w.queue(), w.name());
            }
        } catch (RuntimeException ex) {
            closeAll();
            throw ex;
        }
        running = true;
    }

    /**
     * The listeners by their resolved queue, checked before any worker starts. Two workers of one queue would each
     * claim whatever job comes first, so the jobs would be split between both methods by chance; a listener has no
     * job name to route by, so a queue has one listener.
     */
    private Map<String, DelayqListenerBeanPostProcessor.Endpoint> byQueue(
            List<DelayqListenerBeanPostProcessor.Endpoint> endpoints) {
        Map<String, DelayqListenerBeanPostProcessor.Endpoint> byQueue = new LinkedHashMap<>();
        for (DelayqListenerBeanPostProcessor.Endpoint e : endpoints) {
            String queue = resolve(e.annotation().queue());
            if (!StringUtils.hasText(queue)) {
                throw new IllegalArgumentException("@DelayqListener " + e.describe()
                        + " names no queue: set queue = \"...\"");
            }
            DelayqListenerBeanPostProcessor.Endpoint first = byQueue.putIfAbsent(queue, e);
            if (first != null) {
                boolean sameName = first.describe().equals(e.describe()); // one class, two beans
                throw new IllegalArgumentException("two @DelayqListener methods consume queue '" + queue + "': "
                        + first.describe() + (sameName ? " (bean '" + first.beanName() + "')" : "") + " and "
                        + e.describe() + (sameName ? " (bean '" + e.beanName() + "')" : "")
                        + "; give each its own queue (the jobs of a queue go to one listener method)");
            }
        }
        return byQueue;
    }

    private Worker build(DelayqListenerBeanPostProcessor.Endpoint e, String queue) {
        DelayqListener a = e.annotation();
        String name = e.describe();
        DelayqProperties.Worker d = properties.getWorker();
        DelayqProperties.Retry r = properties.getRetry();
        RetryPolicy retry = RetryPolicy.builder()
                .maxAttempts(attribute(name, "maxAttempts", a.maxAttempts(), r.getMaxAttempts(), ListenerAttr::integer))
                .base(attribute(name, "backoff", a.backoff(), r.getBase(), ListenerAttr::duration))
                .cap(attribute(name, "backoffCap", a.backoffCap(), r.getCap(), ListenerAttr::duration))
                .build();
        try {
            return Worker.builder(delayQ.queue(queue), ListenerMethod.of(e.bean(), e.method(), name, converter))
                    .concurrency(attribute(name, "concurrency", a.concurrency(), d.getConcurrency(), ListenerAttr::integer))
                    .leaseDuration(attribute(name, "leaseDuration", a.leaseDuration(), d.getLeaseDuration(), ListenerAttr::duration))
                    .lookahead(attribute(name, "lookahead", a.lookahead(), d.getLookahead(), ListenerAttr::duration))
                    .shutdownGrace(attribute(name, "shutdownGrace", a.shutdownGrace(), d.getShutdownGrace(), ListenerAttr::duration))
                    .batchSize(d.getBatchSize())
                    .purgeInterval(d.getPurgeInterval())
                    .maxIdleSleep(d.getMaxIdleSleep())
                    .retryPolicy(retry)
                    .metrics(metrics)
                    .build();
        } catch (IllegalArgumentException ex) {
            if (ex.getMessage() != null && ex.getMessage().startsWith("@DelayqListener")) {
                throw ex;
            }
            throw new IllegalArgumentException("@DelayqListener " + name + " on queue '" + queue + "': " + ex.getMessage(), ex);
        }
    }

    private String resolve(String value) {
        String resolved = beanFactory.resolveEmbeddedValue(value);
        return resolved == null ? null : resolved.trim();
    }

    private <T> T attribute(String listener, String attribute, String value, T fallback, Function<String, T> parse) {
        if (!StringUtils.hasText(value)) {
            return fallback;
        }
        String resolved = resolve(value);
        try {
            return parse.apply(resolved);
        } catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException("@DelayqListener " + listener + ": " + attribute + " '" + value + "'"
                    + (value.equals(resolved) ? "" : " (resolved to '" + resolved + "')") + " is not "
                    + ex.getMessage(), ex);
        }
    }

    /** Parsers of the attribute strings; the message completes "... is not ". */
    private static final class ListenerAttr {
        static Integer integer(String s) {
            try {
                return Integer.valueOf(s);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("a whole number", e);
            }
        }

        /** delayq's one duration grammar (the command line's and the dashboard's): 30s, 500ms, 1h30m, PT30S. */
        static Duration duration(String s) {
            try {
                return DurationText.parse(s);
            } catch (DurationText.Invalid e) {
                throw new IllegalArgumentException("a duration: " + e.reason(), e);
            }
        }
    }

    /** Closes every worker at once (each within its shutdown grace) and returns when all are closed. */
    @Override
    public synchronized void stop() {
        running = false;
        closeAll();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE;
    }

    /** Also on context close without a stop (a failed refresh): the workers never outlive the client. */
    @Override
    public synchronized void destroy() {
        running = false;
        closeAll();
    }

    /** The workers running the listeners (empty before start and after stop). */
    public synchronized List<Worker> workers() {
        return List.copyOf(workers);
    }

    private void closeAll() {
        List<Thread> closers = new ArrayList<>();
        for (Worker w : workers) {
            Thread t = new Thread(w::close, "delayq-close-" + w.name());
            t.start();
            closers.add(t);
        }
        boolean interrupted = false;
        for (Thread t : closers) {
            while (true) {
                try {
                    t.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true; // finish closing: a half-closed worker would lose its hand-back
                }
            }
        }
        workers.clear();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
