package dev.delayq;

import java.time.Instant;

/**
 * The result of an administrative change to one job (cancel, reschedule, retry of a dead job).
 *
 * @param status   changed, no such job, or refused because of the job's state
 * @param state    the job's state when refused for it, else {@code null}
 * @param atMillis the new due time for reschedule and retry (epoch ms, Redis clock), else 0
 * @param id       the job changed, when the change named it another way (cancel by dedupe key), else {@code null}
 */
public record ChangeResult(Status status, JobState state, long atMillis, String id) {
    /** A result that names no job. */
    public ChangeResult(Status status, JobState state, long atMillis) {
        this(status, state, atMillis, null);
    }

    /** The possible outcomes. */
    public enum Status {
        /** Done. */
        CHANGED,
        /** There is no such job. */
        NOT_FOUND,
        /** The job's state does not allow it (e.g. cancelling a job that is running). */
        WRONG_STATE
    }

    /** {@code true} when the change was made. */
    public boolean changed() {
        return status == Status.CHANGED;
    }

    /** The new due time, when there is one. */
    public Instant at() {
        return atMillis > 0 ? Instant.ofEpochMilli(atMillis) : null;
    }
}
