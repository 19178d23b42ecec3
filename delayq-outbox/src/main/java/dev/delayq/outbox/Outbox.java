package dev.delayq.outbox;

import dev.delayq.Bounds;
import dev.delayq.Job;
import dev.delayq.outbox.internal.Names;
import dev.delayq.outbox.internal.OutboxRow;
import dev.delayq.outbox.internal.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The outbox's writer: it writes jobs into the outbox table through the caller's JDBC {@link Connection}, in the
 * caller's transaction, so that "order saved" and "timeout scheduled" are one commit. An {@link OutboxRelay} moves the
 * committed rows to Redis; a rolled-back transaction leaves nothing to relay.
 *
 * <pre>{@code
 * Outbox outbox = Outbox.builder().build();            // table delayq_outbox
 * try (Connection c = dataSource.getConnection()) {
 *     c.setAutoCommit(false);
 *     insertOrder(c, order);
 *     outbox.enqueue(c, "payments", Job.builder()
 *             .id("order-" + order.id() + ":timeout")     // every job has an id: a row relayed twice is one job
 *             .delay(Duration.ofMinutes(30))              // counted from the insert, on the database's clock
 *             .build());
 *     c.commit();
 * }
 * }</pre>
 *
 * <p>Every {@link Job} has an id (its own, or the one generated when it was built), stored in the row: relaying a
 * row twice (a relay killed between its enqueue to Redis and its delete, say) finds the job the first relay created.
 * Thread-safe; one per application (per table).
 */
public final class Outbox {
    private final String table;
    private final boolean notifyOnCommit;
    private final int maxPayloadBytes;
    private final Map<OutboxDialect, Sql> sql = new EnumMap<>(OutboxDialect.class);
    private final List<Runnable> relays = new CopyOnWriteArrayList<>();

    private Outbox(Builder b) {
        this.table = b.table;
        this.notifyOnCommit = b.notifyOnCommit;
        this.maxPayloadBytes = b.maxPayloadBytes;
        for (OutboxDialect d : OutboxDialect.values()) {
            sql.put(d, new Sql(d, table));
        }
    }

    /** A builder with the defaults: table {@code delayq_outbox}, notify on commit, payloads up to 256 KiB. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Writes {@code job} into the outbox through {@code connection}, in its current transaction: the job reaches
     * {@code queue} in Redis after the transaction commits, and never if it rolls back.
     *
     * @return the job's id
     * @throws IllegalArgumentException when the connection or job is null, the queue name is invalid, the payload
     *                                  is over the limit or the job's dedupe mode is debounce (not carried)
     * @throws SQLException             from the insert (the caller's transaction decides what follows)
     */
    public String enqueue(Connection connection, String queue, Job job) throws SQLException {
        return enqueueAll(connection, queue, List.of(Objects.requireNonNull(job, "job"))).get(0);
    }

    /**
     * Writes {@code jobs} into the outbox through {@code connection} in one JDBC batch, in its current transaction.
     *
     * @return the jobs' ids, in order
     * @throws IllegalArgumentException when the connection, list or a job is null, the queue name is invalid, a
     *                                  payload is over the limit or a job's dedupe mode is debounce (nothing is
     *                                  written then)
     * @throws SQLException             from the insert
     */
    public List<String> enqueueAll(Connection connection, String queue, List<Job> jobs) throws SQLException {
        if (connection == null) {
            throw new IllegalArgumentException("connection must not be null: pass the connection of the transaction "
                    + "the jobs belong to");
        }
        Names.queue(queue);
        check(jobs);
        if (jobs.isEmpty()) {
            return List.of();
        }
        OutboxDialect dialect = OutboxDialect.of(connection);
        Sql s = sql.get(dialect);
        boolean notify = notifyOnCommit && dialect == OutboxDialect.POSTGRESQL;
        List<String> ids = new ArrayList<>(jobs.size());
        try (PreparedStatement ps = connection.prepareStatement(notify ? s.insertNotifying() : s.insert())) {
            for (Job job : jobs) {
                int first = 1;
                if (notify) {
                    ps.setString(first++, s.channel());
                }
                OutboxRow.bind(ps, first, queue, job);
                ids.add(job.id());
                if (jobs.size() == 1) {
                    ps.executeUpdate();
                } else {
                    ps.addBatch();
                }
            }
            if (jobs.size() > 1) {
                ps.executeBatch();
            }
        }
        // The relays of this process look now, and again shortly (the commit is still to come): the job reaches Redis
        // within milliseconds of the commit without a notification from the database.
        wakeRelays();
        return ids;
    }

    private void check(List<Job> jobs) {
        if (jobs == null) {
            throw new IllegalArgumentException("jobs must not be null");
        }
        for (int i = 0; i < jobs.size(); i++) {
            Job job = jobs.get(i);
            if (job == null) {
                throw new IllegalArgumentException("job at index " + i + " of the list is null");
            }
            if (job.dedupeMode() != dev.delayq.DedupeMode.THROTTLE) {
                // The outbox table has no column for it: relayed as throttle, the job would not do what was asked.
                throw new IllegalArgumentException("job '" + job.id() + "' has dedupe mode " + job.dedupeMode()
                        + ": the outbox carries dedupe keys in throttle mode only (the default); enqueue debounce jobs "
                        + "with JobQueue.enqueue");
            }
            int size = job.payloadUnsafe().length;
            if (size > maxPayloadBytes) {
                throw new IllegalArgumentException("payload of job '" + job.id() + "' is " + size + " bytes: the "
                        + "outbox's limit is " + maxPayloadBytes + " bytes (Outbox.builder().maxPayloadBytes(n); the "
                        + "relay's DelayQ must accept it too)");
            }
        }
    }

    /**
     * Tells the relays of this process that rows are (about to be) committed: each looks at once and a few times in the
     * next second. Called by every enqueue; a framework calls it after commit too (a transaction synchronization).
     */
    public void wakeRelays() {
        for (Runnable r : relays) {
            r.run();
        }
    }

    /** The outbox table's name. */
    public String table() {
        return table;
    }

    /** Whether writes on PostgreSQL notify the listening relays on commit. */
    public boolean notifyOnCommit() {
        return notifyOnCommit;
    }

    /** The statements of this outbox's table in {@code dialect}. */
    Sql sql(OutboxDialect dialect) {
        return sql.get(dialect);
    }

    /** Registers a relay's wake-up; the returned action removes it. */
    Runnable register(Runnable wake) {
        relays.add(wake);
        return () -> relays.remove(wake);
    }

    /** Builder of an {@link Outbox}; {@link #build()} validates every setting. */
    public static final class Builder {
        private String table = "delayq_outbox";
        private boolean notifyOnCommit = true;
        private int maxPayloadBytes = Bounds.DEFAULT_MAX_PAYLOAD;

        private Builder() {
        }

        /**
         * The outbox table (default {@code delayq_outbox}); the failed rows go to the same name with {@code _failed}.
         * A letter or {@code _}, then letters, digits or {@code _}, at most 56 characters, optionally schema-qualified.
         */
        public Builder table(String table) {
            this.table = table;
            return this;
        }

        /**
         * Whether each write on PostgreSQL also sends a {@code NOTIFY} that the database delivers on commit (default
         * {@code true}): relays in other processes then see the rows at once instead of at their next poll.
         */
        public Builder notifyOnCommit(boolean notify) {
            this.notifyOnCommit = notify;
            return this;
        }

        /** The largest payload accepted, in bytes (default 256 KiB, as a {@code DelayQ}'s; 1 to 256 MiB). */
        public Builder maxPayloadBytes(int bytes) {
            this.maxPayloadBytes = bytes;
            return this;
        }

        /**
         * Validates and builds the outbox.
         *
         * @throws IllegalArgumentException naming the invalid setting and what is allowed
         */
        public Outbox build() {
            Names.table(table);
            if (maxPayloadBytes < 1 || maxPayloadBytes > Bounds.MAX_PAYLOAD_LIMIT) {
                throw new IllegalArgumentException("max payload bytes " + maxPayloadBytes + " is invalid: use 1 to "
                        + Bounds.MAX_PAYLOAD_LIMIT);
            }
            return new Outbox(this);
        }
    }
}
