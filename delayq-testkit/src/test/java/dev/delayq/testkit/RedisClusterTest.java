package dev.delayq.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class RedisClusterTest {

    @Test
    void formsAThreeMasterClusterWithReplicasAndFailsOver() {
        try (RedisCluster cluster = RedisCluster.start(3, 1, 1000)) {
            assertThat(cluster.all()).hasSize(6);
            int slot = cluster.slotOf("{orders}:due");
            RedisServer master = cluster.masterOf(slot);
            master.call("SET", "{orders}:x", "1");
            RedisServer replica = cluster.replicas().get(cluster.masters().indexOf(master));
            assertThat(String.valueOf(replica.info("replication").get("role"))).isEqualTo("slave");

            master.kill();
            cluster.awaitHealthy(); // the replica is promoted
            RedisServer promoted = cluster.masterOf(slot);
            assertThat(promoted).isSameAs(replica);
            assertThat(promoted.info("replication").get("role")).isEqualTo("master");
            assertThat(List.of(cluster.running().size())).containsExactly(5);
        }
    }
}
