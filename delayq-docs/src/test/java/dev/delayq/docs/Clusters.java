package dev.delayq.docs;

import dev.delayq.DelayQ;
import dev.delayq.Durability;
import dev.delayq.JobQueue;
import java.time.Duration;

/** docs/cluster.md: Redis Cluster, partitioned queues, Sentinel, durable enqueues. */
final class Clusters {
    private Clusters() {
    }

    static void cluster() {
        // tag::cluster[]
        DelayQ dq = DelayQ.builder()
                .redis("redis://10.0.0.5:7000")     // any node: the others are discovered
                .cluster(true)                      // Lettuce's cluster client, topology refreshed every 30 s
                .build();                           //   and on MOVED/ASK, reconnects and failures (adaptive)
        JobQueue orders = dq.queue("orders", 6);    // 6 partitions: {orders#0} ... {orders#5}, spread over the masters
        // end::cluster[]
        orders.name();
    }

    static void sentinelAndDurability() {
        // tag::sentinel[]
        DelayQ dq = DelayQ.builder()
                .redis("redis-sentinel://sentinel-1:26379,sentinel-2:26379#mymaster")
                .durability(Durability.replicas(1, Duration.ofSeconds(1)))      // enqueue returns once a replica has it
                .build();
        // end::sentinel[]
        dq.close();
    }
}
