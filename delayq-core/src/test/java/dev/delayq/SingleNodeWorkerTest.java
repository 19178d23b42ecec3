package dev.delayq;

import dev.delayq.testkit.RedisExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The worker contract on a single Redis. */
class SingleNodeWorkerTest extends WorkerContract {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    @Override
    RedisExtension redis() {
        return REDIS;
    }
}
