package dev.delayq;

import dev.delayq.testkit.RedisClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Corrupt records on a queue of three partitions, on a three-master Redis Cluster (the partitions spread over the masters). */
class ClusterPartitionedCorruptRecordTest extends CorruptRecordContract {
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

    @Override
    int partitions() {
        return 3;
    }
}
