package dev.delayq.outbox;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/**
 * The SQL dialects the outbox speaks. Each needs {@code SELECT ... FOR UPDATE SKIP LOCKED}, so that relays in several
 * application instances share the rows without waiting on each other or taking a row twice.
 */
public enum OutboxDialect {
    /** PostgreSQL 13 or later; the relay also {@code LISTEN}s for the writers' {@code NOTIFY} on commit. */
    POSTGRESQL("postgresql.sql"),
    /** MySQL 8.0.1 or later and MariaDB 10.6 or later (InnoDB). */
    MYSQL("mysql.sql");

    private final String schemaFile;

    OutboxDialect(String schemaFile) {
        this.schemaFile = schemaFile;
    }

    /** The resource holding this dialect's DDL, with the default table name {@code delayq_outbox}. */
    public String schemaResource() {
        return "/dev/delayq/outbox/schema/" + schemaFile;
    }

    /**
     * The dialect of the database {@code connection} is open to, from its metadata.
     *
     * @throws SQLException when the metadata cannot be read
     * @throws IllegalArgumentException when the database is none of PostgreSQL, MySQL and MariaDB
     */
    public static OutboxDialect of(Connection connection) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName();
        String p = product == null ? "" : product.toLowerCase(Locale.ROOT);
        if (p.contains("postgres")) {
            return POSTGRESQL;
        }
        if (p.contains("mysql") || p.contains("mariadb")) {
            return MYSQL;
        }
        throw new IllegalArgumentException("database product '" + product + "' is not supported by the outbox: "
                + "use PostgreSQL 13+, MySQL 8.0.1+ or MariaDB 10.6+");
    }
}
