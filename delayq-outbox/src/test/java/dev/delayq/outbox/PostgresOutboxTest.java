package dev.delayq.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.Job;
import java.sql.Connection;
import java.time.Duration;
import java.util.Arrays;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** The outbox's contract on PostgreSQL (embedded: its binaries come through Maven), and its LISTEN/NOTIFY. */
class PostgresOutboxTest extends OutboxContract {
    @Override
    TestDatabase newDatabase() throws Exception {
        return PostgresServer.database();
    }

    @Test
    void aRelayOfAnotherProcessIsWokenByTheCommitsNotifyNotByItsPoll() throws Exception {
        // The relay's outbox is not the writer's: no in-process wake-up reaches it, as for a relay in another instance.
        Outbox relaysOwn = Outbox.builder().build();
        OutboxRelay r = relay(OutboxRelay.builder(db.dataSource(), dq).outbox(relaysOwn)
                .pollInterval(Duration.ofMinutes(10))).start();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> r.status().lastSuccessAt() != null);
        // Written, not committed: the notification waits for the commit, so the relay has nothing to see.
        try (Connection c = db.open()) {
            outbox.enqueue(c, "notify", Job.builder().id("held").build());
            assertThat(r.relayOnce()).as("uncommitted rows are invisible to the relay").isZero();
            c.rollback();
        }
        long[] latencies = new long[50];
        for (int i = 0; i < latencies.length; i++) {
            String id = "n" + i;
            write("notify", Job.builder().id(id).delay(Duration.ofHours(1)).build(), true);
            long committed = System.nanoTime();
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1))
                    .until(() -> dq.queue("notify").get(id).isPresent());
            latencies[i] = System.nanoTime() - committed;
        }
        Arrays.sort(latencies);
        System.out.printf("[outbox] %s LISTEN/NOTIFY wake-up, commit to Redis: p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
                db.describe(), latencies[latencies.length / 2] / 1e6, latencies[latencies.length * 99 / 100] / 1e6,
                latencies[latencies.length - 1] / 1e6);
        assertThat(dq.queue("notify").get("held")).isEmpty();
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> r.status().relayed() == latencies.length);
    }

    @Test
    void writersWithoutNotifyLeaveADistantRelayToItsPoll() throws Exception {
        Outbox quiet = Outbox.builder().notifyOnCommit(false).build();
        OutboxRelay r = relay(OutboxRelay.builder(db.dataSource(), dq).outbox(Outbox.builder().build())
                .pollInterval(Duration.ofMinutes(10))).start();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> r.status().lastSuccessAt() != null);
        try (Connection c = db.open()) {
            quiet.enqueue(c, "quiet", Job.builder().id("q1").build());
            c.commit();
        }
        // Nothing wakes the relay (no NOTIFY, another process's writer): the row waits for the poll, or a round.
        Awaitility.await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
                .until(() -> dq.queue("quiet").get("q1").isEmpty());
        assertThat(r.relayOnce()).isEqualTo(1);
        assertThat(dq.queue("quiet").get("q1")).isPresent();
    }
}
