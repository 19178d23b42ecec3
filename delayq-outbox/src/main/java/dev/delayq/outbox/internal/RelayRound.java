package dev.delayq.outbox.internal;

import dev.delayq.DelayQ;
import dev.delayq.EnqueueResult;
import dev.delayq.Job;
import dev.delayq.outbox.OutboxDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One round of the relay, in one database transaction: lock up to a batch of committed rows (skipping rows another
 * relay holds), enqueue their jobs to Redis (one pipelined {@code enqueueAll} per queue), move invalid rows aside with
 * their error, delete the rest, commit.
 *
 * <p>Why this order is exactly-once: the rows stay locked, and stay in the table, until the commit after the enqueue.
 * A relay killed before the commit leaves them to the next round, whose enqueue finds each job already in Redis by its
 * id (a duplicate: nothing created). A round that fails (Redis down, the database gone) is rolled back whole.
 */
public final class RelayRound {
    /** How much of an error is kept with a failed row (the failed table's column holds 2,048 characters). */
    private static final int MAX_ERROR_CHARS = 2000;

    private final Sql sql;
    private final DelayQ delayq;
    private final int batchSize;
    private final Counters counters;
    private final Runnable afterEnqueue;

    /**
     * @param afterEnqueue runs between the enqueue to Redis and the commit (the fault suite stops a relay there)
     */
    public RelayRound(Sql sql, DelayQ delayq, int batchSize, Counters counters, Runnable afterEnqueue) {
        this.sql = sql;
        this.delayq = delayq;
        this.batchSize = batchSize;
        this.counters = counters;
        this.afterEnqueue = afterEnqueue;
    }

    /**
     * Runs one round on {@code c} (auto-commit off); the caller rolls back when it throws.
     *
     * @return the rows taken off the outbox (relayed or moved aside)
     */
    public int run(Connection c) throws SQLException {
        List<OutboxRow> rows = claim(c);
        if (rows.isEmpty()) {
            c.commit();
            return 0;
        }
        Map<Long, String> invalid = new LinkedHashMap<>();
        Map<String, List<Job>> jobs = new LinkedHashMap<>();
        Map<String, List<Long>> seqs = new LinkedHashMap<>();
        for (OutboxRow row : rows) {
            try {
                Job job = check(row);
                jobs.computeIfAbsent(row.queue(), q -> new ArrayList<>()).add(job);
                seqs.computeIfAbsent(row.queue(), q -> new ArrayList<>()).add(row.seq());
            } catch (IllegalArgumentException e) {
                invalid.put(row.seq(), e.getMessage());
            }
        }
        long duplicates = 0;
        Map<Long, Deferred> deferred = new TreeMap<>();
        for (Map.Entry<String, List<Job>> e : jobs.entrySet()) {
            duplicates += enqueue(e.getKey(), e.getValue(), seqs.get(e.getKey()), invalid, deferred);
        }
        // A child refused because a parent of its batch was not in Redis yet (a parent in another queue, relayed after
        // it): its parents are now, so it goes once more, in insert order.
        for (Map.Entry<Long, Deferred> e : deferred.entrySet()) {
            try {
                duplicates += delayq.queue(e.getValue().queue()).enqueue(e.getValue().job()).duplicate() ? 1 : 0;
            } catch (IllegalArgumentException refused) {
                invalid.put(e.getKey(), refused.getMessage());
            }
        }
        afterEnqueue.run();
        moveAside(c, invalid);
        delete(c, rows);
        c.commit();
        counters.relayed.addAndGet(rows.size() - invalid.size());
        counters.duplicates.addAndGet(duplicates);
        counters.failed.addAndGet(invalid.size());
        return rows.size();
    }

    private List<OutboxRow> claim(Connection c) throws SQLException {
        List<OutboxRow> rows = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql.claim())) {
            ps.setInt(1, batchSize);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(OutboxRow.read(rs));
                }
            }
        }
        return rows;
    }

    /** The row's job, when the relay's client would accept it. */
    private Job check(OutboxRow row) {
        Names.queue(row.queue());
        Job job = row.toJob();
        if (job.payloadUnsafe().length > delayq.maxPayloadBytes()) {
            throw new IllegalArgumentException("payload of job '" + job.id() + "' is " + job.payloadUnsafe().length
                    + " bytes: the relay's DelayQ accepts at most " + delayq.maxPayloadBytes());
        }
        return job;
    }

    /**
     * Enqueues {@code jobs} in {@code queue}: all at once, or one by one when Redis refuses the batch for one job's
     * sake (its due time beyond year 9999, say), so that only that job's row is moved aside.
     *
     * @return how many were already there
     */
    private long enqueue(String queue, List<Job> jobs, List<Long> seqs, Map<Long, String> invalid,
                         Map<Long, Deferred> deferred) {
        List<EnqueueResult> results;
        try {
            results = delayq.queue(queue).enqueueAll(jobs);
        } catch (IllegalArgumentException refused) {
            // One by one, in insert order: a parent enqueued in the same batch as its child exists when the child
            // comes (a batch is refused whole when a job names a parent of the same batch).
            long duplicates = 0;
            for (int i = 0; i < jobs.size(); i++) {
                try {
                    duplicates += delayq.queue(queue).enqueue(jobs.get(i)).duplicate() ? 1 : 0;
                } catch (IllegalArgumentException e) {
                    if (jobs.get(i).after().isEmpty()) {
                        invalid.put(seqs.get(i), e.getMessage());
                    } else {
                        deferred.put(seqs.get(i), new Deferred(queue, jobs.get(i)));
                    }
                }
            }
            return duplicates;
        }
        return results.stream().filter(EnqueueResult::duplicate).count();
    }

    private record Deferred(String queue, Job job) {
    }

    private void moveAside(Connection c, Map<Long, String> invalid) throws SQLException {
        if (invalid.isEmpty()) {
            return;
        }
        // One statement per row, not a batch: MariaDB's driver cannot send an INSERT ... SELECT as a bulk batch, and
        // invalid rows are rare.
        try (PreparedStatement ps = c.prepareStatement(sql.moveAside())) {
            for (Map.Entry<Long, String> e : invalid.entrySet()) {
                ps.setString(1, truncate(e.getValue()));
                ps.setLong(2, e.getKey());
                ps.executeUpdate();
            }
        }
    }

    private void delete(Connection c, List<OutboxRow> rows) throws SQLException {
        if (sql.dialect() == OutboxDialect.MYSQL) {
            try (PreparedStatement ps = c.prepareStatement(sql.deleteOne())) {
                for (OutboxRow row : rows) {
                    ps.setLong(1, row.seq());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(sql.delete(rows.size()))) {
            for (int i = 0; i < rows.size(); i++) {
                ps.setLong(i + 1, rows.get(i).seq());
            }
            ps.executeUpdate();
        }
    }

    private static String truncate(String error) {
        String e = error == null ? "invalid row" : error;
        return e.length() <= MAX_ERROR_CHARS ? e : e.substring(0, MAX_ERROR_CHARS);
    }
}
