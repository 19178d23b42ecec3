package dev.delayq.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.delayq.Ack;
import dev.delayq.ClaimOptions;
import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.Lease;
import dev.delayq.testkit.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The fencing defect scenario 13b found, made deterministic: a replica promoted before it heard a claim granted that
 * claim's fencing token again, so the first holder passed the fence. Tokens now count up from Redis's clock in
 * microseconds (claim.lua), so the promoted replica grants a later one. Here the replica is promoted by hand just
 * before the claim (a partition's view of a failover that loses the last write), instead of by the cluster after a
 * SIGKILL.
 */
class FencingFailoverTest {

    @Test
    void aReplicaPromotedBeforeItHeardAClaimNeverGrantsThatClaimsTokenAgain() {
        try (RedisServer master = RedisServer.start(); RedisServer replica = RedisServer.start()) {
            replica.call("REPLICAOF", "127.0.0.1", String.valueOf(master.port()));
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> "up".equals(replica.info("replication").get("master_link_status")));
            Lease first;
            try (DelayQ onMaster = client(master)) {
                JobQueue q = onMaster.queue("fence");
                q.enqueue(Job.builder().id("j").build());
                assertThat(master.call("WAIT", "1", "10000")).as("replicas that have the job").isEqualTo(1L);
                replica.call("REPLICAOF", "NO", "ONE"); // promoted: the claim below never reaches it
                first = q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(5))).jobs().get(0).lease();
            }
            master.kill();
            try (DelayQ onPromoted = client(replica)) {
                JobQueue q = onPromoted.queue("fence");
                Lease second = q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(5))).jobs().get(0).lease();
                assertThat(second.id()).isEqualTo("j");
                assertThat(second.token()).as("the token the promoted replica grants").isNotEqualTo(first.token());
                assertThat(q.leases().complete(first)).as("the first holder's completion").isEqualTo(Ack.STALE);
                assertThat(q.leases().complete(second)).isEqualTo(Ack.OK);
            }
        }
    }

    private static DelayQ client(RedisServer server) {
        return DelayQ.builder().redis(server.uri()).prefix("chaos").timeout(Duration.ofSeconds(5)).build();
    }
}
