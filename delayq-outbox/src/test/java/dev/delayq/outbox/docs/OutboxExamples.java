package dev.delayq.outbox.docs;

import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.outbox.Outbox;
import dev.delayq.outbox.OutboxMetrics;
import dev.delayq.outbox.OutboxRelay;
import dev.delayq.outbox.OutboxStatus;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/** The examples of docs/outbox.md, compiled, and run by {@code OutboxExamplesTest}. */
public final class OutboxExamples {
    private final DataSource dataSource;
    private final DelayQ delayq;

    public OutboxExamples(DataSource dataSource, DelayQ delayq) {
        this.dataSource = dataSource;
        this.delayq = delayq;
    }

    /** Saves an order and schedules its payment time-out in one transaction. */
    public void placeOrder(Outbox outbox, long orderId) throws SQLException {
        // tag::write[]
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO orders (id, status) VALUES (?, 'NEW')")) {
                ps.setLong(1, orderId);
                ps.executeUpdate();
            }
            outbox.enqueue(c, "payments", Job.builder()
                    .id("order-" + orderId + ":timeout")    // the row's job id: relayed twice, still one job
                    .payload("{\"order\":" + orderId + "}")
                    .delay(Duration.ofMinutes(30))          // counted from the insert, on the database's clock
                    .build());
            c.commit();                                     // both, or (on rollback) neither
        }
        // end::write[]
    }

    /** Starts a relay in the application, with its meters. */
    public OutboxRelay startRelay(Outbox outbox, MeterRegistry registry) {
        // tag::relay[]
        OutboxRelay relay = OutboxRelay.builder(dataSource, delayq)
                .outbox(outbox)                         // the writer's: its writes wake this relay at once
                .batchSize(1000)                        // rows per round: one locking select, one pipelined enqueue
                .pollInterval(Duration.ofMillis(500))   // for rows nothing woke it for (other instances on MySQL)
                .build()
                .start();
        new OutboxMetrics(relay).bindTo(registry);     // delayq.outbox.pending, .oldest.age, .relayed, .failed ...
        // on shutdown: relay.close(), before the DataSource and the DelayQ
        // end::relay[]
        return relay;
    }

    /** A health check's view. */
    public boolean healthy(OutboxRelay relay) {
        // tag::status[]
        OutboxStatus s = relay.status();   // counts the table: cache it where it is polled often
        boolean up = s.healthy()           // running, its last round succeeded, the database answered
                && s.oldestPending().compareTo(Duration.ofMinutes(1)) < 0;
        // end::status[]
        return up;
    }
}
