package dev.delayq.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQ;
import dev.delayq.outbox.docs.OutboxExamples;
import dev.delayq.testkit.RedisExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The examples of docs/outbox.md run: an order and its time-out committed together reach Redis. */
class OutboxExamplesTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    @Test
    void theGuidesExamplesRun() throws Exception {
        try (TestDatabase db = PostgresServer.database(); DelayQ dq = DelayQ.connect(REDIS.uri(), REDIS.prefix())) {
            db.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(16) NOT NULL)");
            OutboxExamples examples = new OutboxExamples(db.dataSource(), dq);
            Outbox outbox = Outbox.builder().build();
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            try (OutboxRelay relay = examples.startRelay(outbox, registry)) {
                examples.placeOrder(outbox, 731);
                Awaitility.await().atMost(Duration.ofSeconds(30))
                        .until(() -> dq.queue("payments").get("order-731:timeout").isPresent());
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> examples.healthy(relay));
                assertThat(db.queryLong("SELECT COUNT(*) FROM orders")).isEqualTo(1);
                assertThat(registry.get("delayq.outbox.relayed").functionCounter().count()).isEqualTo(1);
            }
        }
    }
}
