package dev.delayq;

import dev.delayq.testkit.RedisExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Corrupt records on a queue of three partitions, on a single Redis. */
class PartitionedCorruptRecordTest extends CorruptRecordContract {
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

    @Override
    int partitions() {
        return 3;
    }
}
