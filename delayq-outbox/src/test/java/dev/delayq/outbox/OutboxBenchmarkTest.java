package dev.delayq.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.testkit.RedisExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A small benchmark, run at a reduced size by the build: what the outbox adds to a transaction's commit (an order's
 * insert and commit, with and without its outbox row, alternated) and how many rows a relay moves to Redis per second
 * (batches of 1,000). It prints its figures ("[outbox] ...") and asserts only that every row arrived; docs/outbox.md
 * has figures measured with {@code -Doutbox.bench.rows=50000 -Doutbox.bench.commits=2000}.
 */
class OutboxBenchmarkTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private static final int ROWS = Integer.getInteger("outbox.bench.rows", 10_000);
    private static final int COMMITS = Integer.getInteger("outbox.bench.commits", 300);

    @Test
    void postgresql() throws Exception {
        try (TestDatabase db = PostgresServer.database()) {
            run(db);
        }
    }

    @Test
    void mariadb() throws Exception {
        try (TestDatabase db = MariaDbServer.database()) {
            run(db);
        }
    }

    private void run(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE bench_orders (id BIGINT PRIMARY KEY, amount INT NOT NULL)");
        Outbox outbox = Outbox.builder().build();
        long[] plain = new long[COMMITS];
        long[] withOutbox = new long[COMMITS];
        try (Connection c = db.open();
             PreparedStatement order = c.prepareStatement("INSERT INTO bench_orders (id, amount) VALUES (?, ?)")) {
            for (int i = 0; i < COMMITS * 2; i++) {
                boolean outboxToo = i % 2 == 1;
                long start = System.nanoTime();
                order.setLong(1, i);
                order.setInt(2, i % 1000);
                order.executeUpdate();
                if (outboxToo) {
                    outbox.enqueue(c, "bench", Job.builder().id("order-" + i).payload("{\"order\":" + i + "}")
                            .delay(Duration.ofHours(1)).build());
                }
                c.commit();
                (outboxToo ? withOutbox : plain)[i / 2] = System.nanoTime() - start;
            }
        }
        Arrays.sort(plain);
        Arrays.sort(withOutbox);
        System.out.printf("[outbox] %s commit of an order: p50 %.2f ms, p99 %.2f ms; with its outbox row: p50 %.2f ms, "
                        + "p99 %.2f ms (%d of each)%n", db.describe(), plain[COMMITS / 2] / 1e6, plain[COMMITS * 99 / 100] / 1e6,
                withOutbox[COMMITS / 2] / 1e6, withOutbox[COMMITS * 99 / 100] / 1e6, COMMITS);

        try (Connection c = db.open()) {
            for (int i = 0; i < ROWS; i += 1000) {
                List<Job> jobs = new ArrayList<>();
                for (int k = i; k < Math.min(ROWS, i + 1000); k++) {
                    jobs.add(Job.builder().id("bulk-" + k).payload("{\"order\":" + k + "}").delay(Duration.ofHours(1)).build());
                }
                outbox.enqueueAll(c, "bench", jobs);
                c.commit();
            }
        }
        try (DelayQ dq = DelayQ.connect(REDIS.uri(), REDIS.prefix());
             OutboxRelay relay = OutboxRelay.builder(db.dataSource(), dq).outbox(outbox).build()) {
            long start = System.nanoTime();
            long moved = 0;
            for (int n; (n = relay.relayOnce()) > 0; ) {
                moved += n;
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("[outbox] %s relay: %d rows in %.2f s, %.0f rows/s (batches of 1,000)%n", db.describe(),
                    moved, seconds, moved / seconds);
            assertThat(moved).isEqualTo(ROWS + COMMITS);
            assertThat(dq.queue("bench").inspector().stats().scheduled()).isEqualTo(ROWS + COMMITS);
        }
    }
}
