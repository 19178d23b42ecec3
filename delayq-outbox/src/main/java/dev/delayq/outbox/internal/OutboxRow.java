package dev.delayq.outbox.internal;

import dev.delayq.Job;
import dev.delayq.OnParentDead;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

/**
 * One row of the outbox: a job's fields as columns (no Java serialization: the payload is the job's bytes, every other
 * field a plain column an operator can read with SQL). {@link #bind} writes a {@link Job}, {@link #read} reads a claimed
 * row and {@link #toJob} turns it back into the same job.
 *
 * @param seq         the row's key (insert order)
 * @param elapsedMs   how long ago the row was written, on the database's clock
 */
public record OutboxRow(long seq, String queue, String jobId, String name, byte[] payload, Long delayMs, Long runAtMs,
                        int maxAttempts, int priority, Long timeoutMs, String dedupeKey, Long dedupeTtlMs,
                        String group, String afterIds, String onParentDead, String traceparent, String tracestate,
                        long elapsedMs) {
    /** Between the parents' ids in {@code after_ids}: a job id holds no control character. */
    private static final String ID_SEPARATOR = "\n";

    /** Sets parameters {@code first} to {@code first + 15} ({@link Sql#WRITTEN}'s columns) to {@code job} in {@code queue}. */
    public static void bind(PreparedStatement ps, int first, String queue, Job job) throws SQLException {
        int i = first;
        ps.setString(i++, queue);
        ps.setString(i++, job.id());
        setString(ps, i++, job.name());
        ps.setBytes(i++, job.payloadUnsafe());
        setLong(ps, i++, job.delay() == null ? null : job.delay().toMillis());
        setLong(ps, i++, job.runAt() == null ? null : job.runAt().toEpochMilli());
        ps.setInt(i++, job.maxAttempts());
        ps.setInt(i++, job.priority());
        setLong(ps, i++, job.timeout() == null ? null : job.timeout().toMillis());
        setString(ps, i++, job.dedupeKey());
        setLong(ps, i++, job.dedupeTtl() == null ? null : job.dedupeTtl().toMillis());
        setString(ps, i++, job.group());
        setString(ps, i++, job.after().isEmpty() ? null : String.join(ID_SEPARATOR, job.after()));
        setString(ps, i++, job.after().isEmpty() ? null : job.onParentDead().name().toLowerCase(Locale.ROOT));
        setString(ps, i++, job.traceparent());
        setString(ps, i, job.tracestate());
    }

    /** The row at {@code rs}'s cursor, from {@link Sql#claim()}. */
    public static OutboxRow read(ResultSet rs) throws SQLException {
        return new OutboxRow(rs.getLong("seq"), rs.getString("queue"), rs.getString("job_id"), rs.getString("name"),
                rs.getBytes("payload"), getLong(rs, "delay_ms"), getLong(rs, "run_at_ms"), rs.getInt("max_attempts"),
                rs.getInt("priority"), getLong(rs, "timeout_ms"), rs.getString("dedupe_key"),
                getLong(rs, "dedupe_ttl_ms"), rs.getString("group_key"), rs.getString("after_ids"),
                rs.getString("on_parent_dead"), rs.getString("traceparent"), rs.getString("tracestate"),
                Math.max(0, rs.getLong("elapsed_ms")));
    }

    /**
     * The job this row holds, with the same id. A delay counts from the row's insert: the part already elapsed is
     * taken off (a row relayed after its delay is due at once).
     *
     * @throws IllegalArgumentException naming the invalid field, when the row does not hold a valid job
     */
    public Job toJob() {
        if (jobId == null) {
            throw new IllegalArgumentException("job id is missing (column job_id is null)");
        }
        Job.Builder b = Job.builder().id(jobId).payload(payload == null ? new byte[0] : payload).priority(priority);
        if (name != null) {
            b.name(name);
        }
        if (runAtMs != null) {
            b.runAt(Instant.ofEpochMilli(runAtMs));
        } else {
            long delay = delayMs == null ? 0 : delayMs;
            b.delay(delay < 0 ? Duration.ofMillis(delay) : Duration.ofMillis(Math.max(0, delay - elapsedMs)));
        }
        if (maxAttempts != 0) {
            b.maxAttempts(maxAttempts);
        }
        if (timeoutMs != null) {
            b.timeout(Duration.ofMillis(timeoutMs));
        }
        if (dedupeKey != null || dedupeTtlMs != null) {
            b.dedupe(dedupeKey, dedupeTtlMs == null ? null : Duration.ofMillis(dedupeTtlMs));
        }
        if (group != null) {
            b.group(group);
        }
        if (afterIds != null) {
            b.after(afterIds.split(ID_SEPARATOR, -1));
        }
        if (onParentDead != null) {
            b.onParentDead(parentPolicy(onParentDead));
        }
        if (traceparent != null || tracestate != null) {
            b.traceContext(traceparent, tracestate);
        }
        return b.build();
    }

    private static OnParentDead parentPolicy(String column) {
        for (OnParentDead p : OnParentDead.values()) {
            if (p.name().equalsIgnoreCase(column)) {
                return p;
            }
        }
        throw new IllegalArgumentException("on_parent_dead '" + column + "' is invalid: use dead or ignore (or null)");
    }

    private static void setString(PreparedStatement ps, int i, String v) throws SQLException {
        if (v == null) {
            ps.setNull(i, Types.VARCHAR);
        } else {
            ps.setString(i, v);
        }
    }

    private static void setLong(PreparedStatement ps, int i, Long v) throws SQLException {
        if (v == null) {
            ps.setNull(i, Types.BIGINT);
        } else {
            ps.setLong(i, v);
        }
    }

    private static Long getLong(ResultSet rs, String column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }
}
