package dev.delayq.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.Job;
import dev.delayq.JobInfo;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.outbox.Outbox;
import dev.delayq.test.spring.AutoConfigureDelayqRedis;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.transport.SenderContext;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;

/**
 * The transactional outbox in a Spring Boot application, on a real PostgreSQL (embedded, started by the test) and a
 * private Redis: a {@code @Transactional} service saves an order and enqueues its time-out with
 * {@link DelayqTemplate}; the job reaches Redis once after the commit, never after a rollback; the outbox's health
 * and meters show the rows waiting while the relay is stopped.
 */
@SpringBootTest(classes = DelayqOutboxTest.App.class, properties = {
        "spring.data.redis.port=1", "delayq.outbox.enabled=true", "delayq.outbox.initialize-schema=always",
        "management.endpoint.health.show-details=always", "delayq.worker.enabled=false"})
@AutoConfigureDelayqRedis
class DelayqOutboxTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableTransactionManagement
    static class App {
        @Bean
        DataSource dataSource() {
            return OutboxPostgres.newDatabase();
        }

        @Bean
        PlatformTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        JdbcTemplate jdbcTemplate(DataSource dataSource) {
            JdbcTemplate jdbc = new JdbcTemplate(dataSource);
            jdbc.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY, item VARCHAR(64) NOT NULL)");
            return jdbc;
        }

        @Bean
        OrderService orderService(JdbcTemplate jdbc, DelayqTemplate delayq) {
            return new OrderService(jdbc, delayq);
        }

        /** What Micrometer Tracing's propagating handler does with a W3C propagator: the enqueue's context. */
        @Bean
        ObservationHandler<SenderContext<Map<String, String>>> tracePropagation() {
            return new ObservationHandler<>() {
                @Override
                public void onStart(SenderContext<Map<String, String>> context) {
                    context.getSetter().set(context.getCarrier(), "traceparent", TRACEPARENT);
                }

                @Override
                public boolean supportsContext(Observation.Context context) {
                    return context instanceof SenderContext<?>;
                }
            };
        }
    }

    /** The application's service: the order and its payment time-out in one transaction. */
    static class OrderService {
        private final JdbcTemplate jdbc;
        private final DelayqTemplate delayq;

        OrderService(JdbcTemplate jdbc, DelayqTemplate delayq) {
            this.jdbc = jdbc;
            this.delayq = delayq;
        }

        @Transactional
        public void place(long id, String item, boolean fail) {
            jdbc.update("INSERT INTO orders (id, item) VALUES (?, ?)", id, item);
            delayq.enqueue("payments", "order-" + id + ":timeout", new Order(id, item), Duration.ofMinutes(30));
            if (fail) {
                throw new IllegalStateException("payment provider refused order " + id);
            }
        }

        /** A receipt that waits for the charge, written before it in the same transaction; the charge in a group. */
        @Transactional
        public void charge(long id) {
            delayq.enqueue("payments", Job.builder().id("order-" + id + ":receipt").after("order-" + id + ":charge")
                    .payload(delayq.payload(new Order(id, "receipt"))).build());
            delayq.enqueue("payments", Job.builder().id("order-" + id + ":charge").group("customer-" + id)
                    .payload(delayq.payload(new Order(id, "charge"))).delay(Duration.ofMinutes(30)).build());
        }
    }

    @Autowired
    ApplicationContext context;

    @Autowired
    OrderService orders;

    @Autowired
    DelayqTemplate template;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    DelayqOutboxRelay relay;

    @Autowired
    Outbox outbox;

    @Autowired
    MeterRegistry registry;

    private long outboxRows() {
        return jdbc.queryForObject("SELECT count(*) FROM " + outbox.table(), Long.class);
    }

    private long orderRows(long id) {
        return jdbc.queryForObject("SELECT count(*) FROM orders WHERE id = ?", Long.class, id);
    }

    @Test
    void aCommittedOrderGetsExactlyOneJobARolledBackOneNeitherRowNorJob() {
        JobQueue payments = template.queue("payments");
        long before = payments.inspector().stats().scheduled();

        orders.place(1, "pen", false);
        Awaitility.await().atMost(WAIT).until(() -> payments.get("order-1:timeout").isPresent());
        assertThat(payments.get("order-1:timeout").orElseThrow().payloadUtf8()).contains("pen");
        assertThat(orderRows(1)).isOne();

        assertThatThrownBy(() -> orders.place(2, "ink", true)).hasMessageContaining("refused order 2");
        assertThat(orderRows(2)).as("the order rolled back").isZero();
        // The relay takes rows oldest first: once a later order's job is there, a row of order 2 would have been too.
        orders.place(3, "nib", false);
        Awaitility.await().atMost(WAIT).until(() -> payments.get("order-3:timeout").isPresent());
        assertThat(payments.get("order-2:timeout")).as("no job for the rolled-back order").isEmpty();
        Awaitility.await().atMost(WAIT).until(() -> outboxRows() == 0);
        assertThat(payments.inspector().stats().scheduled()).as("one job per committed order").isEqualTo(before + 2);
    }

    @Test
    void aJobsParentsGroupAndTraceContextGoThroughTheOutbox() {
        orders.charge(5);
        JobQueue payments = template.queue("payments");
        Awaitility.await().atMost(WAIT).until(() -> payments.get("order-5:receipt").isPresent());
        assertThat(payments.get("order-5:receipt").orElseThrow().state()).as("waits for its parent")
                .isEqualTo(JobState.WAITING);
        assertThat(payments.inspector().links("order-5:receipt").orElseThrow().pendingParents()).isOne();
        JobInfo charge = payments.get("order-5:charge").orElseThrow();
        assertThat(charge.group()).isEqualTo("customer-5");
        assertThat(charge.traceparent()).as("the enqueue's trace context, through the outbox row").isEqualTo(TRACEPARENT);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM " + outbox.table() + "_failed", Long.class)).isZero();
    }

    @Test
    void outsideATransactionTheJobIsEnqueuedAtOnceWithoutARow() {
        template.enqueue("payments", "direct:timeout", new Order(9, "cap"), Duration.ofMinutes(30));
        assertThat(template.queue("payments").get("direct:timeout")).isPresent();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM " + outbox.table() + " WHERE job_id = 'direct:timeout'",
                Long.class)).isZero();
    }

    @Test
    void healthAndMetersShowThePendingRowsWhileTheRelayIsStoppedAndItCatchesUpWhenStartedAgain() {
        Awaitility.await().atMost(WAIT).until(() -> "UP".equals(TestBootLine.health(context, "delayqOutbox").status()));
        relay.stop();
        try {
            orders.place(20, "ruler", false);
            orders.place(21, "glue", false);
            TestBootLine.HealthView down = TestBootLine.health(context, "delayqOutbox");
            assertThat(down.status()).as("a stopped relay").isEqualTo("DOWN");
            assertThat(down.details()).containsEntry("pending", 2L).containsEntry("relay", "stopped")
                    .containsKey("oldestPendingAge");
            assertThat(relay.dashboardStatus()).as("what the dashboard shows").containsEntry("status", "DOWN")
                    .containsEntry("pending", 2L);
            assertThat(context.getBean(DelayqOutboxDashboardStatus.class).status().get())
                    .as("what the dashboard inside the application is given").containsEntry("pending", 2L);
            Awaitility.await().atMost(WAIT).until(() ->
                    registry.get("delayq.outbox.pending").gauge().value() == 2.0);
            assertThat(registry.get("delayq.outbox.oldest.age").gauge().value()).isGreaterThanOrEqualTo(0.0);
            assertThat(template.queue("payments").get("order-20:timeout")).isEmpty();
        } finally {
            relay.start();
        }
        Awaitility.await().atMost(WAIT).until(() -> template.queue("payments").get("order-21:timeout").isPresent());
        Awaitility.await().atMost(WAIT).until(() -> "UP".equals(TestBootLine.health(context, "delayqOutbox").status()));
        assertThat(TestBootLine.health(context, "delayqOutbox").details()).containsEntry("pending", 0L)
                .containsEntry("relay", "running");
        Awaitility.await().atMost(WAIT).until(() -> registry.get("delayq.outbox.pending").gauge().value() == 0.0);
        assertThat(registry.get("delayq.outbox.relayed").functionCounter().count()).isGreaterThanOrEqualTo(1.0);
        assertThat(registry.get("delayq.outbox.failed").functionCounter().count()).isZero();
    }
}
