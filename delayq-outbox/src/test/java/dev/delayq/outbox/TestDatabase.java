package dev.delayq.outbox;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * A real database server for the tests, with a database of its own for each test class (created, then dropped at the
 * end): {@link PostgresServer} (embedded PostgreSQL binaries from Maven) or {@link MariaDbServer} (a private mariadbd,
 * or the machine's own on 127.0.0.1:3306). Never an in-memory imitation.
 */
interface TestDatabase extends AutoCloseable {
    /** What it is, for messages: "PostgreSQL 14.22", "MariaDB 10.11.19 (private server)". */
    String describe();

    /** The JDBC URL of the test's database. */
    String jdbcUrl();

    /** The user of {@link #jdbcUrl()} (no password). */
    String user();

    /** The statement that returns the next value of sequence {@code name}. */
    String nextval(String name);

    /** A data source of the test's database (a new connection per call: the relay keeps its own). */
    DataSource dataSource();

    /** A connection to the test's database, auto-commit off. */
    default Connection open() throws SQLException {
        Connection c = dataSource().getConnection();
        c.setAutoCommit(false);
        return c;
    }

    /** Runs {@code sql} in its own transaction. */
    default void execute(String... sql) throws SQLException {
        try (Connection c = open(); Statement st = c.createStatement()) {
            for (String s : sql) {
                st.execute(s);
            }
            c.commit();
        }
    }

    /** The first column of the first row of {@code sql}. */
    default long queryLong(String sql) throws SQLException {
        try (Connection c = open(); Statement st = c.createStatement(); var rs = st.executeQuery(sql)) {
            rs.next();
            long v = rs.getLong(1);
            c.commit();
            return v;
        }
    }

    /** Drops the test's database. */
    @Override
    void close() throws SQLException;

    /** A data source over {@link DriverManager}: a new connection per call. */
    static DataSource driverManager(String url, String user, String password) {
        return new SimpleDataSource(url, user, password);
    }
}
