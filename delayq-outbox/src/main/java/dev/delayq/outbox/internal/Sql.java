package dev.delayq.outbox.internal;

import dev.delayq.outbox.OutboxDialect;
import java.util.Collections;
import java.util.StringJoiner;

/**
 * Every SQL statement of the outbox for one table in one dialect, built once. The writer's insert, the relay's claim,
 * delete and move-aside, and the operator's pending count are here side by side, so the columns they name cannot drift
 * apart.
 */
public final class Sql {
    /** The columns a writer sets, in the order of {@link #insert()}'s parameters. */
    static final String WRITTEN = "queue, job_id, name, payload, delay_ms, run_at_ms, max_attempts, priority, timeout_ms,"
            + " dedupe_key, dedupe_ttl_ms, group_key, after_ids, on_parent_dead, traceparent, tracestate";

    /** The number of {@link #WRITTEN} columns. */
    static final int WRITTEN_COLUMNS = WRITTEN.split(",").length;

    private final OutboxDialect dialect;
    private final String table;
    private final String failedTable;
    private final String insert;
    private final String insertNotifying;
    private final String claim;
    private final String pending;

    /** The statements of {@code table} (validated by the caller) in {@code dialect}. */
    public Sql(OutboxDialect dialect, String table) {
        this.dialect = dialect;
        this.table = table;
        this.failedTable = table + "_failed";
        this.insert = "INSERT INTO " + table + " (" + WRITTEN + ") VALUES (" + parameters() + ")";
        // PostgreSQL delivers a NOTIFY when its transaction commits, and not at all when it rolls back: the relays that
        // LISTEN learn of the row at the moment it becomes visible. In the insert itself, so it costs no round trip;
        // PostgreSQL folds a transaction's identical notifications into one.
        this.insertNotifying = "WITH n AS (SELECT pg_notify(?, '')) INSERT INTO " + table + " (" + WRITTEN
                + ") SELECT " + parameters() + " FROM n";
        // Oldest first; rows another relay holds are skipped, not waited for. The elapsed time since the row was
        // written is measured on the database's clock (one clock for every writer and relay): a job's delay counts
        // from its insert, not from its relay.
        this.claim = "SELECT seq, " + WRITTEN + ", " + elapsedMs() + " AS elapsed_ms FROM " + table
                + " ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED";
        this.pending = "SELECT COUNT(*), MAX(" + elapsedMs() + ") FROM " + table;
    }

    private static String parameters() {
        return String.join(", ", Collections.nCopies(WRITTEN_COLUMNS, "?"));
    }

    private String elapsedMs() {
        return dialect == OutboxDialect.POSTGRESQL
                ? "CAST(EXTRACT(EPOCH FROM (clock_timestamp() - created_at)) * 1000 AS BIGINT)"
                : "TIMESTAMPDIFF(MICROSECOND, created_at, NOW(6)) DIV 1000";
    }

    /** The dialect. */
    public OutboxDialect dialect() {
        return dialect;
    }

    /** The outbox table. */
    public String table() {
        return table;
    }

    /** The table invalid rows are moved to. */
    public String failedTable() {
        return failedTable;
    }

    /** One row: the {@link #WRITTEN} columns as parameters 1 to 16. */
    public String insert() {
        return insert;
    }

    /** {@link #insert()} with a {@code NOTIFY} on {@link #channel()} first (PostgreSQL): parameter 1 is the channel. */
    public String insertNotifying() {
        return insertNotifying;
    }

    /** Up to {@code ?} rows, oldest first, locked; rows locked by another relay are skipped. */
    public String claim() {
        return claim;
    }

    /** The number of rows and the age of the oldest in ms (null when empty). */
    public String pending() {
        return pending;
    }

    /**
     * Deletes the {@code n} rows whose seq are the parameters (PostgreSQL). On InnoDB the relay deletes row by row in a
     * batch instead ({@link #deleteOne()}): there an {@code IN} list on a small table may be run as a scan that locks
     * every row it reads, including the rows other relays hold, and the relays deadlock.
     */
    public String delete(int n) {
        return "DELETE FROM " + table + " WHERE seq IN " + placeholders(n);
    }

    /** Deletes the row whose seq is the parameter (a point lookup on the primary key, locking that row only). */
    public String deleteOne() {
        return "DELETE FROM " + table + " WHERE seq = ?";
    }

    /** Copies the row whose seq is parameter 2 to the failed table with the error (parameter 1). */
    public String moveAside() {
        return "INSERT INTO " + failedTable + " (seq, " + WRITTEN + ", created_at, error) SELECT seq, " + WRITTEN
                + ", created_at, ? FROM " + table + " WHERE seq = ?";
    }

    /**
     * The PostgreSQL notification channel of this table (its name, within PostgreSQL's 63-byte identifier limit): the
     * writers notify it, in their transaction, so that it is delivered on commit.
     */
    public String channel() {
        return table.length() > 63 ? table.substring(0, 63) : table;
    }

    private static String placeholders(int n) {
        StringJoiner j = new StringJoiner(", ", "(", ")");
        for (int i = 0; i < n; i++) {
            j.add("?");
        }
        return j.toString();
    }
}
