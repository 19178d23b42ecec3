package dev.delayq.spring;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * A real PostgreSQL for the outbox's tests: one embedded server per test JVM (io.zonky.test, its binaries through Maven,
 * as delayq-outbox's tests start it), a fresh empty database per {@link #newDatabase()}.
 */
final class OutboxPostgres {
    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static EmbeddedPostgres server;

    private OutboxPostgres() {
    }

    private static synchronized EmbeddedPostgres server() {
        if (server == null) {
            try {
                server = EmbeddedPostgres.builder().start();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start embedded PostgreSQL", e);
            }
            EmbeddedPostgres s = server;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // The JVM is ending; the server's directory is temporary.
                }
            }));
        }
        return server;
    }

    /** A new, empty database on the shared server (no outbox tables: the starter creates them). */
    static DataSource newDatabase() {
        EmbeddedPostgres pg = server();
        String name = "starter" + DATABASES.incrementAndGet();
        try (Connection c = pg.getPostgresDatabase().getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name, e);
        }
        return pg.getDatabase("postgres", name);
    }
}
