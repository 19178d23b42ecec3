package dev.delayq;

import dev.delayq.testkit.RedisClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The queue contract on a three-master Redis Cluster. */
class ClusterQueueTest extends QueueContract {
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
