package dev.delayq;

import dev.delayq.testkit.RedisExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Corrupt records on a plain queue, on a single Redis. */
class CorruptRecordTest extends CorruptRecordContract {
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
