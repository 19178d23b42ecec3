package dev.delayq;

import dev.delayq.testkit.RedisExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The queue contract on the machine's redis-server (7.x here), or the bundled one when none is installed. */
class SingleNodeQueueTest extends QueueContract {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    @Override
    Target target() {
        return Target.of(REDIS.server());
    }

    @Override
    String prefix() {
        return REDIS.prefix();
    }
}
