package dev.delayq.outbox;

import dev.delayq.DelayQ;
import dev.delayq.Job;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * The application of {@link OrdersKillTest}, run as a process of its own and killed with SIGKILL: it saves orders with
 * their payment time-out in one transaction (the order row and the outbox row), rolls back every fifth, and relays
 * the outbox to Redis in the same process. It prints "C id" after each commit, "R id" after each rollback.
 *
 * <p>Arguments: JDBC URL, database user, the statement that returns the next order id, Redis URI, key prefix, mode: {@code relay} (writer and relay), {@code write} (no relay: rows
 * pile up committed, not relayed), {@code hold} (the relay stops after its first enqueue to Redis, before it deletes
 * the rows and commits, and prints "ENQUEUED": the test kills it there).
 */
public final class OrdersApp {
    private OrdersApp() {
    }

    public static void main(String[] args) throws Exception {
        String nextval = args[2];
        String mode = args[5];
        PrintStream out = System.out;
        var ds = TestDatabase.driverManager(args[0], args[1], "");
        Outbox outbox = Outbox.builder().build();
        DelayQ dq = DelayQ.builder().redis(args[3]).prefix(args[4]).build();
        OutboxRelay.Builder relay = OutboxRelay.builder(ds, dq).outbox(outbox).batchSize(100);
        if (mode.equals("hold")) {
            relay.afterEnqueue(() -> {
                out.println("ENQUEUED");
                out.flush();
                while (true) {
                    LockSupport.park();
                }
            });
        }
        if (!mode.equals("write")) {
            relay.build().start();
        }
        out.println("READY");
        out.flush();
        while (true) {
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                long id;
                try (PreparedStatement ps = c.prepareStatement(nextval); ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    id = rs.getLong(1);
                }
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO orders (id, amount) VALUES (?, ?)")) {
                    ps.setLong(1, id);
                    ps.setInt(2, (int) (id % 1000));
                    ps.executeUpdate();
                }
                outbox.enqueue(c, "payments", Job.builder().id("order-" + id + ":timeout")
                        .payload("{\"order\":" + id + "}").delay(Duration.ofHours(1)).build());
                if (id % 5 == 0) {
                    c.rollback();
                    out.println("R " + id);
                } else {
                    c.commit();
                    out.println("C " + id);
                }
                out.flush();
            }
        }
    }
}
