package dev.delayq.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQ;
import dev.delayq.JobInfo;
import dev.delayq.JobState;
import dev.delayq.testkit.RedisExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fault-suite scenario of the outbox: an application process ({@link OrdersApp}) that commits orders with their
 * payment time-outs in one transaction, and rolls back some, is killed with SIGKILL again and again: while it writes
 * and relays, while it writes with no relay (rows committed, not relayed), and once exactly between its relay's enqueue
 * to Redis and its delete. Afterwards every committed order has exactly one job and no rolled-back order has one.
 * Runs {@code -Doutbox.kill.runs=N} times (default 6; the full size is 30), on each database
 * ({@link PostgresOrdersKillTest}, {@link MariaDbOrdersKillTest}).
 */
abstract class OrdersKillTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    static TestDatabase db;

    static void start(TestDatabase database) throws Exception {
        db = database;
        db.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY, amount INT NOT NULL)", "CREATE SEQUENCE orders_seq");
    }

    @AfterAll
    static void stop() throws Exception {
        if (db != null) { // null when no database could be had: the class was skipped
            db.close();
            db = null;
        }
    }

    @Test
    void everyCommittedOrderGetsExactlyOneJobAndNoRolledBackOrderGetsOne(@TempDir Path dir) throws Exception {
        int runs = Integer.getInteger("outbox.kill.runs", 6);
        Random random = new Random(44);
        String prefix = REDIS.prefix();
        long maxPendingAfterKill = 0;
        Set<Long> rolledBack = new HashSet<>();
        for (int run = 0; run < runs; run++) {
            String mode = run == runs - 1 ? "hold" : run % 3 == 1 ? "write" : "relay";
            Path log = dir.resolve("app-" + run + ".log");
            Process app = start(prefix, mode, log);
            try {
                if (mode.equals("hold")) {
                    Awaitility.await().atMost(Duration.ofSeconds(120)).until(() -> lines(log).contains("ENQUEUED"));
                } else {
                    int commits = 20 + random.nextInt(200);
                    Awaitility.await().atMost(Duration.ofSeconds(120))
                            .until(() -> lines(log).stream().filter(l -> l.startsWith("C ")).count() >= commits);
                }
            } finally {
                app.destroyForcibly(); // SIGKILL: no shutdown hook, no rollback sent, no connection closed politely
                assertThat(app.waitFor(60, TimeUnit.SECONDS)).isTrue();
            }
            lines(log).stream().filter(l -> l.startsWith("R ")).map(l -> Long.parseLong(l.substring(2)))
                    .forEach(rolledBack::add);
            maxPendingAfterKill = Math.max(maxPendingAfterKill, db.queryLong("SELECT COUNT(*) FROM delayq_outbox"));
        }

        Set<String> expected = committedOrders().stream().map(id -> "order-" + id + ":timeout").collect(Collectors.toSet());
        try (DelayQ dq = DelayQ.connect(REDIS.uri(), prefix);
             OutboxRelay relay = OutboxRelay.builder(db.dataSource(), dq).build().start()) {
            Awaitility.await().atMost(Duration.ofSeconds(120)).until(() -> relay.status().pending() == 0);
            List<JobInfo> jobs = dq.queue("payments").inspector().stream(JobState.SCHEDULED).toList();
            Set<String> ids = jobs.stream().map(JobInfo::id).collect(Collectors.toSet());
            assertThat(jobs).as("no id twice").hasSize(ids.size());
            assertThat(ids).as("one job for every committed order, and nothing else").isEqualTo(expected);
            assertThat(rolledBack).as("the app rolled back some orders").isNotEmpty();
            for (long id : rolledBack) {
                assertThat(ids).doesNotContain("order-" + id + ":timeout");
            }
            assertThat(relay.status().duplicates())
                    .as("the rows the held relay had enqueued were relayed again, and found in Redis").isPositive();
            assertThat(maxPendingAfterKill).as("some kills left committed rows unrelayed").isPositive();
            System.out.printf("[outbox] %s kill scenario: %d SIGKILLs, %d orders committed, %d rolled back, %d jobs in Redis, "
                            + "at most %d committed rows unrelayed after a kill, %d rows relayed again after the kill "
                            + "between enqueue and delete (duplicates: no new job)%n", db.describe(), runs, expected.size(),
                    rolledBack.size(), ids.size(), maxPendingAfterKill, relay.status().duplicates());
        }
    }

    private static Process start(String prefix, String mode, Path log) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        return new ProcessBuilder(java, "-Xmx128m", "-cp", System.getProperty("java.class.path"),
                OrdersApp.class.getName(), db.jdbcUrl(), db.user(), db.nextval("orders_seq"), REDIS.uri(), prefix, mode)
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    private static List<String> lines(Path log) throws Exception {
        return Files.exists(log) ? Files.readAllLines(log, StandardCharsets.UTF_8) : List.of();
    }

    private static Set<Long> committedOrders() throws Exception {
        Set<Long> ids = new HashSet<>();
        try (Connection c = db.open(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT id FROM orders")) {
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
            c.commit();
        }
        return ids;
    }
}
