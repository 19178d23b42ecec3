package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.testkit.RedisClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link RemoteParentsContract} on a three-master Redis Cluster: the children's and parents' queues in other slots. */
class ClusterRemoteParentsTest extends RemoteParentsContract {
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

    @Test
    void theQueuesAreInDifferentSlots() {
        long orders = (Long) target().call("CLUSTER", "KEYSLOT", outbox("orders"));
        long payments = (Long) target().call("CLUSTER", "KEYSLOT", outbox("payments"));
        long refunds = (Long) target().call("CLUSTER", "KEYSLOT", outbox("refunds"));
        assertThat(orders).isNotEqualTo(payments).isNotEqualTo(refunds);
        assertThat(payments).isNotEqualTo(refunds);
    }
}
