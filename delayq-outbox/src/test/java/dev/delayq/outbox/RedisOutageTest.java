package dev.delayq.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.testkit.RedisExtension;
import java.sql.Connection;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Redis down while the application commits: the writes still commit (the outbox needs only the database), the relay's
 * rounds fail and roll back, and once Redis is back every committed row becomes exactly one job.
 */
class RedisOutageTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.dedicated(b -> { });

    static TestDatabase db;

    @BeforeAll
    static void start() throws Exception {
        db = PostgresServer.database();
    }

    @AfterAll
    static void stop() throws Exception {
        db.close();
    }

    @Test
    void rowsCommittedDuringAnOutageAreRelayedOnceWhenRedisIsBack() throws Exception {
        Outbox outbox = Outbox.builder().build();
        try (DelayQ dq = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).timeout(Duration.ofSeconds(1)).build();
             OutboxRelay relay = OutboxRelay.builder(db.dataSource(), dq).outbox(outbox).batchSize(40).build().start()) {
            write(outbox, 0, 50);
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> dq.queue("outage").inspector().stats().scheduled() == 50);

            REDIS.server().kill();
            write(outbox, 50, 200);
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> relay.status().errors() >= 2);
            OutboxStatus during = relay.status();
            assertThat(during.pending()).isEqualTo(150);
            assertThat(during.healthy()).isFalse();
            assertThat(during.running()).isTrue();

            REDIS.server().restart();
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> relay.status().pending() == 0);
            // A restarted Redis without persistence has lost the first 50; what counts is the outage's 150: each once.
            for (int i = 50; i < 200; i++) {
                assertThat(dq.queue("outage").get("o" + i)).as("o" + i).isPresent();
            }
            OutboxStatus after = relay.status();
            assertThat(after.relayed()).isEqualTo(200);
            assertThat(after.healthy()).isTrue();
            System.out.printf("[outbox] Redis outage: %d failed rounds, %d rows relayed after it, %d duplicates%n",
                    after.errors(), 150, after.duplicates());
        }
    }

    private static void write(Outbox outbox, int from, int to) throws Exception {
        for (int i = from; i < to; i += 10) {
            try (Connection c = db.open()) {
                for (int k = i; k < i + 10; k++) {
                    outbox.enqueue(c, "outage", Job.builder().id("o" + k).delay(Duration.ofHours(1)).build());
                }
                c.commit();
            }
        }
    }
}
