package dev.delayq;

import dev.delayq.testkit.RedisBinary;
import dev.delayq.testkit.RedisExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link RemoteParentsContract} on the bundled Redis 6.2, the oldest version delayq supports. */
class Redis62RemoteParentsTest extends RemoteParentsContract {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.dedicated(b -> b.binary(RedisBinary.bundled()));

    @Override
    Target target() {
        return Target.of(REDIS.server());
    }

    @Override
    String prefix() {
        return REDIS.prefix();
    }
}
