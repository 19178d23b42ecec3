package dev.delayq.internal.queue;

import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records a queue's name in its prefix's registry ({@code <prefix>:queues}) on its first enqueue. The registry only
 * feeds listings ({@code DelayQ.queues()}, {@code delayq queues}, the dashboard): a failure is logged and retried on
 * the next enqueue, never the enqueue's failure.
 */
final class Registration {
    private static final Logger LOG = LoggerFactory.getLogger(Registration.class);

    private final RedisBackend redis;
    private final String prefix;
    private final String name;
    private volatile boolean done;

    Registration(RedisBackend redis, String prefix, String name) {
        this.redis = redis;
        this.prefix = prefix;
        this.name = name;
    }

    void ensure() {
        if (done) {
            return;
        }
        redis.sadd(Keys.registry(prefix), name.getBytes(StandardCharsets.UTF_8)).whenComplete((n, e) -> {
            if (e == null) {
                done = true;
            } else {
                LOG.warn("queue {} could not be recorded in {}:queues (it will not be listed): {}", name, prefix,
                        e.getMessage());
            }
        });
    }
}
