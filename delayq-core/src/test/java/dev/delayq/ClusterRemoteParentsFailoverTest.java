package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.testkit.RedisCluster;
import dev.delayq.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Parents in another queue through a cluster failover (docs/flows.md, "how it stays exactly once"): the master holding
 * the children's queue is killed with SIGKILL while workers complete parents and relay their notices. With replicated
 * writes (the relay applies a notice under the client's durability before acknowledging it), no child is left waiting
 * for a parent that has ended: every child runs, and none is released by a notice it had counted already.
 */
class ClusterRemoteParentsFailoverTest {
    private static final int CHILDREN = 300;

    @Test
    void everyChildIsReleasedThroughAFailoverOfItsMaster() {
        try (RedisCluster cluster = RedisCluster.start(3, 1, 1000)) {
            Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
            List<DelayQ> clients = new ArrayList<>();
            List<Worker> workers = new ArrayList<>();
            try {
                DelayQ producer = client(cluster).build();
                clients.add(producer);
                JobQueue orders = producer.queue("orders");
                JobQueue payments = producer.queue("payments");
                // Children first waiting, each on its own parent, one in three on two (a fan-in across the failover).
                for (int i = 0; i < CHILDREN; i++) {
                    payments.enqueue(Job.builder().id("p" + i).delay(Duration.ofMillis(i * 5L)).build());
                }
                for (int i = 0; i < CHILDREN; i++) {
                    Job.Builder b = Job.builder().id("c" + i).afterIn("payments", "p" + i);
                    if (i % 3 == 0 && i + 1 < CHILDREN) {
                        b.afterIn("payments", "p" + (i + 1));
                    }
                    orders.enqueue(b.build());
                }
                for (int w = 0; w < 2; w++) {
                    for (String queue : List.of("payments", "orders")) {
                        DelayQ c = client(cluster).build();
                        clients.add(c);
                        workers.add(Worker.builder(c.queue(queue), job -> runs.computeIfAbsent(job.id(),
                                        k -> new AtomicInteger()).incrementAndGet())
                                .name(queue + "-" + w).leaseDuration(Duration.ofSeconds(3)).maxIdleSleep(Duration.ofSeconds(1))
                                .build().start());
                    }
                }
                RedisServer victim = cluster.masterOf(cluster.slotOf("rf:{orders}:jobs"));
                Awaitility.await().atMost(Duration.ofSeconds(60))
                        .until(() -> runs.keySet().stream().filter(id -> id.startsWith("c")).count() >= CHILDREN / 3);
                victim.kill();
                cluster.awaitHealthy();

                Awaitility.await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).until(() -> {
                    try {
                        return orders.inspector().stats().done() == CHILDREN && orders.inspector().stats().waiting() == 0;
                    } catch (DelayQException e) {
                        return false; // the cluster is still settling for this client
                    }
                });
                long reruns = runs.values().stream().mapToLong(n -> n.get() - 1).sum();
                System.out.printf("remote parents through a failover: %d children, %d parents, %d re-runs (completions"
                        + " lost with the killed master)%n", CHILDREN, CHILDREN, reruns);
                for (int i = 0; i < CHILDREN; i++) {
                    assertThat(runs).as("child c%d ran", i).containsKey("c" + i);
                }
                assertThat(orders.inspector().check().problems()).isEmpty();
                assertThat(payments.inspector().check().problems()).isEmpty();
            } finally {
                workers.forEach(Worker::close);
                clients.forEach(DelayQ::close);
            }
        }
    }

    private static DelayQ.Builder client(RedisCluster cluster) {
        return DelayQ.builder().redis(cluster.uri()).cluster(true).prefix("rf").timeout(Duration.ofSeconds(2))
                .durability(Durability.replicas(1, Duration.ofMillis(500)));
    }
}
