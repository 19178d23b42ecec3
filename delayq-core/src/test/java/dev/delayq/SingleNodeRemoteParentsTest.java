package dev.delayq;

import dev.delayq.testkit.RedisExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link RemoteParentsContract} on one Redis. */
class SingleNodeRemoteParentsTest extends RemoteParentsContract {
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
