package dev.delayq.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobInfo;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.testkit.RedisExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The outbox's contract, run on each database ({@link PostgresOutboxTest}, {@link MariaDbOutboxTest}) against a real
 * Redis: what commits reaches Redis once, what rolls back never, rows are shared by relays, invalid rows are moved
 * aside, and the relay's figures tell the truth.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class OutboxContract {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    TestDatabase db;
    DelayQ dq;
    final Outbox outbox = Outbox.builder().build();
    final List<OutboxRelay> relays = new ArrayList<>();

    abstract TestDatabase newDatabase() throws Exception;

    @BeforeAll
    void startDatabase() throws Exception {
        db = newDatabase();
    }

    @AfterAll
    void dropDatabase() throws Exception {
        if (db != null) {
            db.close();
        }
    }

    @BeforeEach
    void clean() throws Exception {
        db.execute("DELETE FROM delayq_outbox", "DELETE FROM delayq_outbox_failed");
        dq = DelayQ.connect(REDIS.uri(), REDIS.prefix());
    }

    @AfterEach
    void close() {
        relays.forEach(OutboxRelay::close);
        relays.clear();
        dq.close();
    }

    OutboxRelay relay(OutboxRelay.Builder b) {
        OutboxRelay r = b.build();
        relays.add(r);
        return r;
    }

    OutboxRelay relay() {
        return relay(OutboxRelay.builder(db.dataSource(), dq).outbox(outbox));
    }

    void write(String queue, Job job, boolean commit) throws Exception {
        try (Connection c = db.open()) {
            outbox.enqueue(c, queue, job);
            if (commit) {
                c.commit();
            } else {
                c.rollback();
            }
        }
    }

    long pending() throws Exception {
        return db.queryLong("SELECT COUNT(*) FROM delayq_outbox");
    }

    @Test
    void aRowCarriesItsGroupParentsPolicyAndTraceContextAndAChildWrittenBeforeItsParentStillWaitsForIt() throws Exception {
        String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        try (Connection c = db.open()) {
            // The child's row comes first: the relay's batch is refused for its sake, and it goes again once its
            // parent is in Redis.
            outbox.enqueueAll(c, "flows", List.of(
                    Job.builder().id("summary").after("part-1", "part-2").onParentDead(dev.delayq.OnParentDead.IGNORE)
                            .build(),
                    Job.builder().id("part-1").group("tenant-7").build().withTraceContext(traceparent, "vendor=1"),
                    Job.builder().id("part-2").build()));
            c.commit();
        }

        assertThat(relay().relayOnce()).isEqualTo(3);

        JobQueue q = dq.queue("flows");
        assertThat(db.queryLong("SELECT COUNT(*) FROM delayq_outbox_failed")).isZero();
        JobInfo child = q.get("summary").orElseThrow();
        assertThat(child.state()).isEqualTo(JobState.WAITING);
        dev.delayq.FlowLinks links = q.inspector().links("summary").orElseThrow();
        assertThat(links.pendingParents()).isEqualTo(2);
        assertThat(links.onParentDead()).isEqualTo(dev.delayq.OnParentDead.IGNORE);
        JobInfo parent = q.get("part-1").orElseThrow();
        assertThat(parent.group()).isEqualTo("tenant-7");
        assertThat(parent.traceparent()).isEqualTo(traceparent);
        assertThat(parent.tracestate()).isEqualTo("vendor=1");
        assertThat(q.get("part-2").orElseThrow().group()).isNull();
    }

    @Test
    void aCommittedRowBecomesTheSameJobInRedisAndLeavesTheTable() throws Exception {
        Instant before = dq.serverTime();
        write("payments", Job.builder().id("order-1:timeout").name("timeout").payload("{\"order\":1}")
                .delay(Duration.ofMinutes(30)).maxAttempts(3).priority(7).timeout(Duration.ofSeconds(20))
                .dedupe("order-1", Duration.ofHours(1)).build(), true);
        write("payments", Job.builder().id("order-2:remind").runAt(Instant.parse("2030-01-01T00:00:00Z")).build(), true);
        assertThat(pending()).isEqualTo(2);

        assertThat(relay().relayOnce()).isEqualTo(2);

        JobQueue q = dq.queue("payments");
        JobInfo one = q.get("order-1:timeout").orElseThrow();
        assertThat(one.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(one.name()).isEqualTo("timeout");
        assertThat(one.payloadUtf8()).isEqualTo("{\"order\":1}");
        assertThat(one.maxAttempts()).isEqualTo(3);
        assertThat(one.priority()).isEqualTo(7);
        assertThat(one.dedupeKey()).isEqualTo("order-1");
        // The delay counts from the insert: due 30 minutes after it, give or take the test's own time.
        assertThat(one.dueAt()).isBetween(before.plus(Duration.ofMinutes(29)), dq.serverTime().plus(Duration.ofMinutes(30)));
        assertThat(q.get("order-2:remind").orElseThrow().dueAt()).isEqualTo(Instant.parse("2030-01-01T00:00:00Z"));
        assertThat(pending()).isZero();
        assertThat(relays.get(0).status().relayed()).isEqualTo(2);
    }

    @Test
    void aRolledBackTransactionEnqueuesNothing() throws Exception {
        write("payments", Job.builder().id("rolled-back").build(), false);
        write("payments", Job.builder().id("committed").build(), true);
        OutboxRelay r = relay();
        assertThat(r.relayOnce()).isEqualTo(1);
        assertThat(r.relayOnce()).isZero();
        assertThat(dq.queue("payments").get("rolled-back")).isEmpty();
        assertThat(dq.queue("payments").get("committed")).isPresent();
        assertThat(dq.queue("payments").inspector().stats().scheduled()).isEqualTo(1);
    }

    @Test
    void aRowRelayedAgainAfterItsRoundFailedBetweenEnqueueAndDeleteIsStillOneJob() throws Exception {
        for (int i = 0; i < 10; i++) {
            write("q", Job.builder().id("j" + i).delay(Duration.ofHours(1)).build(), true);
        }
        AtomicBoolean fail = new AtomicBoolean(true);
        OutboxRelay r = relay(OutboxRelay.builder(db.dataSource(), dq).outbox(outbox).afterEnqueue(() -> {
            if (fail.getAndSet(false)) {
                throw new IllegalStateException("stopped between the enqueue and the delete");
            }
        }));
        assertThatThrownBy(r::relayOnce).hasMessageContaining("between the enqueue and the delete");
        assertThat(dq.queue("q").inspector().stats().scheduled()).as("enqueued before the failure").isEqualTo(10);
        assertThat(pending()).as("rolled back: the rows stay").isEqualTo(10);

        assertThat(r.relayOnce()).isEqualTo(10);
        OutboxStatus s = r.status();
        assertThat(s.relayed()).isEqualTo(10);
        assertThat(s.duplicates()).isEqualTo(10);
        assertThat(s.errors()).isEqualTo(1);
        assertThat(s.lastError()).contains("between the enqueue and the delete");
        assertThat(dq.queue("q").inspector().stats().scheduled()).isEqualTo(10);
        assertThat(pending()).isZero();
    }

    @Test
    void theRelayMovesAtMostABatchPerRoundOldestFirst() throws Exception {
        try (Connection c = db.open()) {
            List<Job> jobs = new ArrayList<>();
            for (int i = 0; i < 2500; i++) {
                jobs.add(Job.builder().id("b" + i).delay(Duration.ofHours(1)).build());
            }
            assertThat(outbox.enqueueAll(c, "bulk", jobs)).hasSize(2500).startsWith("b0", "b1");
            c.commit();
        }
        OutboxRelay r = relay();
        assertThat(r.relayOnce()).isEqualTo(1000);
        assertThat(dq.queue("bulk").get("b999")).isPresent();
        assertThat(dq.queue("bulk").get("b1000")).isEmpty();
        assertThat(r.relayOnce()).isEqualTo(1000);
        assertThat(r.relayOnce()).isEqualTo(500);
        assertThat(r.relayOnce()).isZero();
        assertThat(dq.queue("bulk").inspector().stats().scheduled()).isEqualTo(2500);
    }

    @Test
    void severalRelaysShareTheRowsAndNoneTakesARowAnotherTook() throws Exception {
        for (int i = 0; i < 3; i++) {
            relay(OutboxRelay.builder(db.dataSource(), dq).outbox(outbox).batchSize(50).name("r" + i)).start();
        }
        int writers = 4;
        int perWriter = 500;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int writer = w;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < perWriter; i += 10) {
                        try (Connection c = db.open()) {
                            List<Job> jobs = new ArrayList<>();
                            for (int k = i; k < i + 10; k++) {
                                jobs.add(Job.builder().id("w" + writer + "-" + k).delay(Duration.ofHours(1)).build());
                            }
                            outbox.enqueueAll(c, "shared", jobs);
                            c.commit();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        int total = writers * perWriter;
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> dq.queue("shared").inspector().stats().scheduled() == total);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> pending() == 0);
        long relayed = relays.stream().mapToLong(r -> r.status().relayed()).sum();
        long duplicates = relays.stream().mapToLong(r -> r.status().duplicates()).sum();
        assertThat(relayed).isEqualTo(total);
        assertThat(duplicates).as("a row taken by two relays would be enqueued twice: a duplicate").isZero();
    }

    @Test
    void invalidRowsAreMovedAsideWithTheirErrorAndTheRestIsRelayed() throws Exception {
        write("good", Job.builder().id("fine").build(), true);
        // Rows an outbox would never write, as another program or a hand-written INSERT could.
        try (Connection c = db.open();
             PreparedStatement ps = c.prepareStatement("INSERT INTO delayq_outbox (queue, job_id, payload, delay_ms)"
                     + " VALUES (?, ?, ?, ?)")) {
            Object[][] bad = {{"bad queue", "x1", 0L}, {"good", "x2", -5L}, {"good", "", 0L}};
            for (Object[] row : bad) {
                ps.setString(1, (String) row[0]);
                ps.setString(2, (String) row[1]);
                ps.setBytes(3, new byte[0]);
                ps.setLong(4, (Long) row[2]);
                ps.addBatch();
            }
            ps.executeBatch();
            c.commit();
        }
        write("good", Job.builder().id("fine2").build(), true);

        OutboxRelay r = relay();
        assertThat(r.relayOnce()).isEqualTo(5);
        assertThat(dq.queue("good").inspector().stats().scheduled()).isEqualTo(2);
        assertThat(pending()).isZero();
        assertThat(db.queryLong("SELECT COUNT(*) FROM delayq_outbox_failed")).isEqualTo(3);
        List<String> errors = new ArrayList<>();
        try (Connection c = db.open(); var st = c.createStatement();
             var rs = st.executeQuery("SELECT job_id, error FROM delayq_outbox_failed ORDER BY seq")) {
            while (rs.next()) {
                errors.add(rs.getString(1) + ": " + rs.getString(2));
            }
            c.commit();
        }
        assertThat(errors).satisfiesExactly(
                e -> assertThat(e).startsWith("x1: queue name 'bad queue' is invalid"),
                e -> assertThat(e).startsWith("x2: ").contains("delay"),
                e -> assertThat(e).startsWith(": ").contains("job id"));
        OutboxStatus s = r.status();
        assertThat(s.relayed()).isEqualTo(2);
        assertThat(s.failed()).isEqualTo(3);
        assertThat(r.relayOnce()).as("moved aside, not retried").isZero();
    }

    @Test
    void anIdleRelayIsWokenByAWriterOfItsProcessLongBeforeItsPollInterval() throws Exception {
        OutboxRelay r = relay(OutboxRelay.builder(db.dataSource(), dq).outbox(outbox)
                .pollInterval(Duration.ofMinutes(10)).listen(false)).start();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> r.status().lastSuccessAt() != null);
        long[] latencies = new long[50];
        for (int i = 0; i < latencies.length; i++) {
            String id = "wake" + i;
            write("wake", Job.builder().id(id).delay(Duration.ofHours(1)).build(), true);
            long committed = System.nanoTime();
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1))
                    .until(() -> dq.queue("wake").get(id).isPresent());
            latencies[i] = System.nanoTime() - committed;
        }
        java.util.Arrays.sort(latencies);
        System.out.printf("[outbox] %s in-process wake-up, commit to Redis: p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
                db.describe(), latencies[latencies.length / 2] / 1e6, latencies[latencies.length * 99 / 100] / 1e6,
                latencies[latencies.length - 1] / 1e6);
        // The job is in Redis a moment before the relay's commit counts it.
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> r.status().relayed() == latencies.length);
    }

    @Test
    void statusAndMetersTellPendingRowsTheOldestAgeAndTheCounts() throws Exception {
        OutboxRelay r = relay();
        assertThat(r.status().pending()).isZero();
        assertThat(r.status().oldestPending()).isEqualTo(Duration.ZERO);
        assertThat(r.status().running()).isFalse();
        write("m", Job.builder().id("m1").build(), true);
        write("m", Job.builder().id("m2").build(), true);
        Awaitility.await().atMost(Duration.ofSeconds(10))
                .until(() -> r.status().oldestPending().compareTo(Duration.ofMillis(50)) >= 0);
        OutboxStatus s = r.status();
        assertThat(s.pending()).isEqualTo(2);

        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new OutboxMetrics(r, Duration.ZERO, java.time.Clock.systemUTC()).bindTo(registry);
        System.gc(); // nothing but the registry holds the binder: its gauges must still read (Micrometer holds weakly)
        assertThat(registry.get("delayq.outbox.pending").gauge().value()).isEqualTo(2);
        assertThat(registry.get("delayq.outbox.oldest.age").gauge().value()).isGreaterThanOrEqualTo(0.05);
        r.relayOnce();
        assertThat(registry.get("delayq.outbox.pending").gauge().value()).isZero();
        assertThat(registry.get("delayq.outbox.relayed").functionCounter().count()).isEqualTo(2);
        assertThat(registry.get("delayq.outbox.failed").functionCounter().count()).isZero();
        assertThat(registry.get("delayq.outbox.errors").functionCounter().count()).isZero();
        r.start();
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> r.status().healthy());
        r.close();
        assertThat(r.status().running()).isFalse();
        assertThat(r.status().healthy()).isFalse();
    }

    @Test
    void anotherTableNameWorksEndToEnd() throws Exception {
        try (Connection c = db.dataSource().getConnection()) {
            OutboxSchema.create(c, "orders_outbox");
        }
        Outbox custom = Outbox.builder().table("orders_outbox").build();
        try (Connection c = db.open()) {
            custom.enqueue(c, "custom", Job.builder().id("c1").build());
            c.commit();
        }
        assertThat(pending()).isZero();
        assertThat(db.queryLong("SELECT COUNT(*) FROM orders_outbox")).isEqualTo(1);
        OutboxRelay r = relay(OutboxRelay.builder(db.dataSource(), dq).outbox(custom));
        assertThat(r.relayOnce()).isEqualTo(1);
        assertThat(dq.queue("custom").get("c1")).isPresent();
        db.execute("DROP TABLE orders_outbox", "DROP TABLE orders_outbox_failed");
    }

    @Test
    void theWriterRefusesInvalidInputNamingItAndWritesNothing() throws Exception {
        try (Connection c = db.open()) {
            assertThatThrownBy(() -> outbox.enqueue(c, "no spaces", Job.of("x")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("queue name 'no spaces' is invalid");
            assertThatThrownBy(() -> outbox.enqueue(null, "q", Job.of("x")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connection must not be null");
            Outbox small = Outbox.builder().maxPayloadBytes(4).build();
            assertThatThrownBy(() -> small.enqueueAll(c, "q", List.of(Job.of("ok"), Job.builder().id("big").payload("12345").build())))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("payload of job 'big' is 5 bytes: the outbox's limit is 4 bytes");
            assertThatThrownBy(() -> outbox.enqueue(c, "q", Job.builder().id("deb").dedupe("k", null)
                    .dedupeMode(dev.delayq.DedupeMode.DEBOUNCE).build()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("job 'deb' has dedupe mode DEBOUNCE: the outbox carries dedupe keys in throttle mode only");
            c.commit();
        }
        assertThat(pending()).isZero();
        assertThatThrownBy(() -> Outbox.builder().table("drop table;").build())
                .hasMessageContaining("outbox table 'drop table;' is invalid");
        assertThatThrownBy(() -> OutboxRelay.builder(db.dataSource(), dq).batchSize(0).build())
                .hasMessageContaining("batch size 0 is invalid: use 1 to 10,000 rows");
        assertThatThrownBy(() -> OutboxRelay.builder(db.dataSource(), dq).pollInterval(Duration.ofMillis(1)).build())
                .hasMessageContaining("poll interval PT0.001S is invalid");
    }
}
