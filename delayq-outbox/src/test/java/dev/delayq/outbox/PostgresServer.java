package dev.delayq.outbox;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * Embedded PostgreSQL (io.zonky.test: the server's binaries come through Maven; as root it runs under
 * {@code unshare -U}, as PostgreSQL refuses root): one server per test JVM, one database per {@link #database()}.
 */
final class PostgresServer {
    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static EmbeddedPostgres server;

    private PostgresServer() {
    }

    static synchronized EmbeddedPostgres server() {
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

    /** A new database on the shared server, with the outbox's tables; dropped by {@link TestDatabase#close()}. */
    static TestDatabase database() throws SQLException {
        EmbeddedPostgres pg = server();
        String name = "outbox" + DATABASES.incrementAndGet();
        try (Connection c = pg.getPostgresDatabase().getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE " + name);
        }
        String url = pg.getJdbcUrl("postgres", name);
        DataSource ds = TestDatabase.driverManager(url, "postgres", "");
        String version;
        try (Connection c = ds.getConnection()) {
            version = c.getMetaData().getDatabaseProductVersion();
            OutboxSchema.create(c, "delayq_outbox");
        }
        String describe = "PostgreSQL " + version;
        return new TestDatabase() {
            @Override
            public String describe() {
                return describe;
            }

            @Override
            public String jdbcUrl() {
                return url;
            }

            @Override
            public String user() {
                return "postgres";
            }

            @Override
            public String nextval(String name) {
                return "SELECT nextval('" + name + "')";
            }

            @Override
            public DataSource dataSource() {
                return ds;
            }

            @Override
            public void close() throws SQLException {
                try (Connection c = pg.getPostgresDatabase().getConnection(); Statement st = c.createStatement()) {
                    st.execute("DROP DATABASE " + name + " WITH (FORCE)");
                }
            }
        };
    }
}
