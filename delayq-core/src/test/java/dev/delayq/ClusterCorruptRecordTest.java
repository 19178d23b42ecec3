package dev.delayq;

import dev.delayq.testkit.RedisClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Corrupt records on a plain queue, on a three-master Redis Cluster. */
class ClusterCorruptRecordTest extends CorruptRecordContract {
    @RegisterExtension
    static final RedisClusterExtension CLUSTER = new RedisClusterExtension();

    @Override
    Target target() {
        return Target.of(CLUSTER.cluster());
    }

    @Override
    String prefix() {
        return CLUSTER.prefix();
    }
}
