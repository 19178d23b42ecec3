package dev.delayq.spring;

import dev.delayq.outbox.OutboxSchema;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code delayq.outbox.initialize-schema}: creates the outbox's two tables at start-up, before anything writes to them,
 * when they are missing and the mode says so ({@code always}; {@code embedded} only on an embedded database, which
 * PostgreSQL, MySQL and MariaDB never are, as Spring Batch's {@code initialize-schema} decides it).
 */
final class OutboxSchemaInitializer {
    private static final Logger LOG = LoggerFactory.getLogger(OutboxSchemaInitializer.class);

    private OutboxSchemaInitializer() {
    }

    /**
     * Creates the tables {@code table} and {@code table_failed} on {@code dataSource} when {@code mode} asks for it and
     * they are not there.
     *
     * @return whether it created them
     * @throws IllegalStateException naming the table and the property when they cannot be created
     */
    static boolean initialize(DataSource dataSource, String table, DelayqOutboxProperties.InitializeSchema mode) {
        if (mode == DelayqOutboxProperties.InitializeSchema.NEVER) {
            return false;
        }
        try (Connection c = dataSource.getConnection()) {
            if (mode == DelayqOutboxProperties.InitializeSchema.EMBEDDED && !embedded(c)) {
                return false;
            }
            c.setAutoCommit(true); // a failed probe must not abort a transaction the DDL then runs in
            if (exists(c, table) && exists(c, table + "_failed")) {
                return false;
            }
            OutboxSchema.create(c, table);
            LOG.info("delayq: created the outbox tables {} and {}_failed (delayq.outbox.initialize-schema={})", table,
                    table, mode.name().toLowerCase(Locale.ROOT));
            return true;
        } catch (SQLException | RuntimeException e) {
            throw new IllegalStateException("delayq.outbox.initialize-schema=" + mode.name().toLowerCase(Locale.ROOT)
                    + ": cannot create the outbox table " + table + ": " + e.getMessage(), e);
        }
    }

    /** Whether {@code table} can be read: a probe rather than the metadata, whose name case differs by database. */
    private static boolean exists(Connection c, String table) {
        try (Statement st = c.createStatement()) {
            st.executeQuery("SELECT 1 FROM " + table + " WHERE 1 = 0").close();
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    /** Boot's embedded databases: H2, HSQLDB and Derby. */
    private static boolean embedded(Connection c) throws SQLException {
        String product = String.valueOf(c.getMetaData().getDatabaseProductName()).toLowerCase(Locale.ROOT);
        return product.contains("h2") || product.contains("hsql") || product.contains("derby");
    }
}
