package dev.delayq.outbox;

import dev.delayq.outbox.internal.Names;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The outbox's DDL, as shipped in the jar ({@code dev/delayq/outbox/schema/postgresql.sql} and {@code mysql.sql}, plain
 * SQL for Flyway, Liquibase or a database client): the outbox table and the table of failed rows.
 */
public final class OutboxSchema {
    private static final String DEFAULT_TABLE = "delayq_outbox";

    private OutboxSchema() {
    }

    /**
     * The DDL of {@code dialect} for the tables {@code table} and {@code table_failed}, one statement per entry,
     * without comments.
     *
     * @throws IllegalArgumentException when the table name is invalid
     */
    public static List<String> statements(OutboxDialect dialect, String table) {
        Names.table(table);
        String text;
        try (InputStream in = OutboxSchema.class.getResourceAsStream(dialect.schemaResource())) {
            if (in == null) {
                throw new IllegalStateException("the jar lacks " + dialect.schemaResource());
            }
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + dialect.schemaResource(), e);
        }
        StringBuilder sql = new StringBuilder();
        for (String line : text.split("\n")) {
            if (!line.strip().startsWith("--")) {
                sql.append(line).append('\n');
            }
        }
        List<String> statements = new ArrayList<>();
        for (String s : sql.toString().split(";")) {
            if (!s.isBlank()) {
                statements.add(s.strip().replaceAll("\\b" + DEFAULT_TABLE + "(?=\\b|_failed\\b)", table));
            }
        }
        return statements;
    }

    /**
     * Creates the outbox's tables through {@code connection} (its dialect read from its metadata). Fails when they
     * exist: a migration tool, or a start-up option that checks first, decides when to call it.
     *
     * @throws SQLException when a statement fails
     */
    public static void create(Connection connection, String table) throws SQLException {
        List<String> statements = statements(OutboxDialect.of(connection), table);
        try (Statement st = connection.createStatement()) {
            for (String s : statements) {
                st.execute(s);
            }
        }
        if (!connection.getAutoCommit()) {
            connection.commit();
        }
    }
}
