package dev.delayq.spring;

import dev.delayq.DelayQ;
import dev.delayq.RetryPolicy;
import dev.delayq.Worker;
import dev.delayq.WorkerMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.springframework.util.StringUtils;

/**
 * The workers to run, one per queue: the queue's {@link DelayqListener} methods (one without a job name at most, and
 * one per job name) and its {@link DelayqScheduled} methods (each the handler of its schedule's job name), checked
 * before any worker starts. The worker's settings are {@code delayq.worker.*}, {@code delayq.retry.*} and
 * {@code delayq.queues.<queue>.*}, overridden by the attributes of the queue's listeners, which must agree.
 */
final class QueuePlan {
    /** The endpoints of one queue. */
    static final class Group {
        final String queue;
        DelayqListenerBeanPostProcessor.Endpoint fallback;
        final Map<String, DelayqListenerBeanPostProcessor.Endpoint> byName = new LinkedHashMap<>();

        Group(String queue) {
            this.queue = queue;
        }

        List<DelayqListenerBeanPostProcessor.Endpoint> all() {
            List<DelayqListenerBeanPostProcessor.Endpoint> all = new ArrayList<>();
            if (fallback != null) {
                all.add(fallback);
            }
            all.addAll(byName.values());
            return all;
        }

        String describe() {
            return String.join(", ", all().stream().map(DelayqListenerBeanPostProcessor.Endpoint::label).toList());
        }
    }

    private final Map<String, Group> groups = new LinkedHashMap<>();
    private final EndpointAttributes attributes;

    private QueuePlan(EndpointAttributes attributes) {
        this.attributes = attributes;
    }

    /**
     * Groups {@code endpoints} by their resolved queue.
     *
     * @throws IllegalArgumentException for an endpoint without a queue, or two of one queue and job name
     */
    static QueuePlan of(List<DelayqListenerBeanPostProcessor.Endpoint> endpoints, EndpointAttributes attributes) {
        QueuePlan plan = new QueuePlan(attributes);
        for (DelayqListenerBeanPostProcessor.Endpoint e : endpoints) {
            String queue = attributes.resolve(e.listener() != null ? e.listener().queue() : e.scheduled().queue());
            if (!StringUtils.hasText(queue)) {
                throw new IllegalArgumentException(e.label() + " names no queue: set queue = \"...\"");
            }
            Group g = plan.groups.computeIfAbsent(queue, Group::new);
            String name = attributes.resolve(e.listener() != null ? e.listener().name() : e.scheduled().name());
            if (!StringUtils.hasText(name)) {
                if (e.scheduled() != null) {
                    throw new IllegalArgumentException(e.label() + " names no schedule: set name = \"...\"");
                }
                if (g.fallback != null) {
                    throw twice(queue, null, g.fallback, e);
                }
                g.fallback = e;
            } else {
                DelayqListenerBeanPostProcessor.Endpoint first = g.byName.putIfAbsent(name, e);
                if (first != null) {
                    throw twice(queue, name, first, e);
                }
            }
        }
        return plan;
    }

    /**
     * Two methods would each take whatever job comes first, so the jobs would be split between them by chance: one
     * method per queue and job name.
     */
    private static IllegalArgumentException twice(String queue, String name, DelayqListenerBeanPostProcessor.Endpoint a,
                                                  DelayqListenerBeanPostProcessor.Endpoint b) {
        boolean sameName = a.describe().equals(b.describe()); // one class, two beans
        String what = name == null ? "two @DelayqListener methods consume queue '" + queue + "': "
                : "two methods run the jobs named '" + name + "' of queue '" + queue + "': ";
        return new IllegalArgumentException(what + a.describe() + (sameName ? " (bean '" + a.beanName() + "')" : "")
                + " and " + b.describe() + (sameName ? " (bean '" + b.beanName() + "')" : "")
                + (name == null ? "; give each its own queue, or each its own job name (name = \"...\")"
                : "; give each its own job name"));
    }

    /** The groups, by queue. */
    Map<String, Group> groups() {
        return groups;
    }

    /** The settings of one worker and where each came from. */
    Worker build(Group g, DelayQ delayQ, DelayqProperties p, DelayqPayloadConverter converter, WorkerMetrics metrics,
                 Executor executor, DelayqObservations observations) {
        DelayqProperties.Worker d = p.getWorker();
        DelayqProperties.Retry r = p.getRetry();
        DelayqQueueProperties q = p.getQueues().getOrDefault(g.queue, new DelayqQueueProperties());
        String label = g.describe();
        RetryPolicy retry = RetryPolicy.builder()
                .maxAttempts(merged(g, "maxAttempts", DelayqListener::maxAttempts,
                        q.getMaxAttempts() != null ? q.getMaxAttempts() : r.getMaxAttempts(), EndpointAttributes::integer))
                .base(merged(g, "backoff", DelayqListener::backoff, r.getBase(), EndpointAttributes::duration))
                .cap(merged(g, "backoffCap", DelayqListener::backoffCap, r.getCap(), EndpointAttributes::duration))
                .build();
        try {
            Worker.Builder b = g.fallback == null ? Worker.builder(delayQ.queue(g.queue))
                    : Worker.builder(delayQ.queue(g.queue), observations.handler(g.queue, handler(g.fallback, converter)));
            g.byName.forEach((name, e) -> b.handle(name, observations.handler(g.queue, handler(e, converter))));
            b.concurrency(merged(g, "concurrency", DelayqListener::concurrency, d.getConcurrency(), EndpointAttributes::integer))
                    .leaseDuration(merged(g, "leaseDuration", DelayqListener::leaseDuration, d.getLeaseDuration(), EndpointAttributes::duration))
                    .lookahead(merged(g, "lookahead", DelayqListener::lookahead, d.getLookahead(), EndpointAttributes::duration))
                    .shutdownGrace(merged(g, "shutdownGrace", DelayqListener::shutdownGrace, d.getShutdownGrace(), EndpointAttributes::duration))
                    .batchSize(d.getBatchSize())
                    .purgeInterval(d.getPurgeInterval())
                    .maxIdleSleep(d.getMaxIdleSleep())
                    .retryPolicy(retry)
                    .metrics(metrics);
            Duration timeout = merged(g, "jobTimeout", DelayqListener::jobTimeout, q.getJobTimeout(), EndpointAttributes::duration);
            if (timeout != null) {
                b.jobTimeout(timeout);
            }
            if (StringUtils.hasText(d.getName())) {
                b.name(d.getName());
            }
            if (executor != null) {
                b.executor(executor);
            }
            return b.build();
        } catch (IllegalArgumentException ex) {
            if (ex.getMessage() != null && ex.getMessage().startsWith("@Delayq")) {
                throw ex;
            }
            throw new IllegalArgumentException(label + " on queue '" + g.queue + "': " + ex.getMessage(), ex);
        }
    }

    private static ListenerMethod handler(DelayqListenerBeanPostProcessor.Endpoint e, DelayqPayloadConverter converter) {
        return ListenerMethod.of(e.bean(), e.method(), e.label(), converter);
    }

    /**
     * The value of a worker setting: the one the queue's listeners set (they share the worker, so two that set it
     * must agree), else {@code fallback}.
     */
    private <T> T merged(Group g, String attribute, Function<DelayqListener, String> read, T fallback,
                         Function<String, T> parse) {
        T value = null;
        DelayqListenerBeanPostProcessor.Endpoint from = null;
        for (DelayqListenerBeanPostProcessor.Endpoint e : g.all()) {
            if (e.listener() == null) {
                continue;
            }
            T v = attributes.get(e.label(), attribute, read.apply(e.listener()), null, parse);
            if (v == null) {
                continue;
            }
            if (value != null && !Objects.equals(value, v)) {
                throw new IllegalArgumentException("@DelayqListener " + from.describe() + " and " + e.describe()
                        + " set " + attribute + " of queue '" + g.queue + "' to " + value + " and " + v
                        + ": the listeners of a queue share its worker; set it on one of them");
            }
            value = v;
            from = e;
        }
        return value != null ? value : fallback;
    }
}
