package dev.delayq;

import dev.delayq.testkit.RedisClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The core's queue contract on a three-master Redis Cluster, with the Lettuce and Micrometer that Spring Boot manages. */
class BootLettuceClusterQueueTest extends QueueContract {
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
