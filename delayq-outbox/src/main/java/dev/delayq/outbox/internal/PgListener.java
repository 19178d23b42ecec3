package dev.delayq.outbox.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's ear on PostgreSQL: one connection that {@code LISTEN}s on the outbox's channel and wakes the relay for
 * every notification, which PostgreSQL delivers when a writer's transaction commits. So a relay in another process
 * sees a commit within milliseconds, not at its next poll. When the connection fails it reconnects after a pause (the
 * relay polls meanwhile) and wakes the relay once, for what was committed while nobody listened.
 *
 * <p>Loaded only on PostgreSQL, so the PostgreSQL driver stays optional for the other databases.
 */
public final class PgListener implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(PgListener.class);
    private static final int WAIT_MS = 250;

    private final DataSource dataSource;
    private final String channel;
    private final Waker relay;
    private final Waker own = new Waker();

    public PgListener(DataSource dataSource, String channel, Waker relay) {
        this.dataSource = dataSource;
        this.channel = channel;
        this.relay = relay;
    }

    /** Whether this connection's driver is PostgreSQL's own (pgjdbc), whose notifications the listener reads. */
    public static boolean supported(Connection c) {
        try {
            return c.isWrapperFor(PGConnection.class);
        } catch (SQLException | LinkageError e) {
            return false;
        }
    }

    @Override
    public void run() {
        long failures = 0;
        while (!own.closed()) {
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(true);
                try (Statement st = c.createStatement()) {
                    st.execute("LISTEN \"" + channel + "\"");
                }
                PGConnection pg = c.unwrap(PGConnection.class);
                failures = 0;
                relay.signal();
                while (!own.closed()) {
                    PGNotification[] got = pg.getNotifications(WAIT_MS);
                    if (got != null && got.length > 0) {
                        relay.signal();
                    }
                }
            } catch (SQLException | RuntimeException e) {
                if (own.closed()) {
                    return;
                }
                failures++;
                if (failures == 1 || failures % 100 == 0) {
                    LOG.warn("outbox listener on channel {}: {} (failure {}); the relay polls until it is back", channel,
                            e.toString(), failures);
                }
                try {
                    own.pause(Math.min(5_000L, 100L << Math.min(failures, 6)) * 1_000_000L);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Stops listening (within {@value #WAIT_MS} ms). */
    public void close() {
        own.close();
    }
}
