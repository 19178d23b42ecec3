package dev.delayq.spring;

import dev.delayq.Limits;
import java.time.Duration;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies {@code delayq.queues.<queue>.*} in Redis at start-up, before the workers start: the rate and concurrency
 * limits, the pause and the event stream. A setting left unset leaves the queue as Redis has it. (job-timeout and
 * max-attempts are the queue's worker settings: {@link QueuePlan}.)
 */
final class QueueSetup {
    private static final Logger LOG = LoggerFactory.getLogger(QueueSetup.class);

    private QueueSetup() {
    }

    /**
     * Checks every queue's settings, then applies them.
     *
     * @throws IllegalArgumentException naming the property, its value and what is allowed (nothing applied)
     */
    static void apply(OperatorCalls ops, Map<String, DelayqQueueProperties> queues) {
        Map<String, Limits> limits = new java.util.LinkedHashMap<>();
        queues.forEach((queue, q) -> {
            Limits l = limits(queue, q);
            if (l != null) {
                limits.put(queue, l);
            }
        });
        queues.forEach((queue, q) -> {
            Limits l = limits.get(queue);
            if (l != null) {
                ops.limits(queue, l);
            }
            if (q.getPaused() != null) {
                ops.paused(queue, q.getPaused());
            }
            if (q.getEvents() != null) {
                ops.events(queue, q.getEvents());
            }
            LOG.info("delayq: queue '{}' set up from delayq.queues.{}: limits {}, paused {}, events {}", queue, queue,
                    l == null ? "unchanged" : l, q.getPaused() == null ? "unchanged" : q.getPaused(),
                    q.getEvents() == null ? "unchanged" : q.getEvents());
        });
    }

    /** The limits the properties set, or null when they set none. */
    static Limits limits(String queue, DelayqQueueProperties q) {
        String prefix = "delayq.queues." + queue + ".";
        if (q.getRate() == null && q.getConcurrencyLimit() == null) {
            return null;
        }
        Limits limits = Limits.none();
        String rate = q.getRate() == null ? "" : q.getRate().trim();
        if (!rate.isEmpty() && !rate.equals("none")) {
            int slash = rate.indexOf('/');
            try {
                if (slash <= 0) {
                    throw new IllegalArgumentException("no slash");
                }
                int jobs = Integer.parseInt(rate.substring(0, slash).trim());
                Duration per = EndpointAttributes.duration(rate.substring(slash + 1).trim());
                limits = limits.withRate(jobs, per);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(prefix + "rate is '" + q.getRate() + "': expected jobs/period such as "
                        + "100/1s or 6000/1m (or none)" + (e.getMessage() == null || e.getMessage().equals("no slash")
                        || e instanceof NumberFormatException ? "" : ": " + e.getMessage()), e);
            }
        }
        if (q.getConcurrencyLimit() != null && !rate.equals("none")) {
            try {
                limits = limits.concurrency(q.getConcurrencyLimit());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(prefix + "concurrency-limit is " + q.getConcurrencyLimit() + ": "
                        + e.getMessage(), e);
            }
        }
        return limits;
    }
}
