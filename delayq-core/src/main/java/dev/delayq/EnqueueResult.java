package dev.delayq;

/**
 * What an enqueue did: created the job, or found a duplicate (same id, or same dedupe key while it
 * holds) and changed nothing.
 *
 * @param id              the created job's id, or for a duplicate the id of the job that already exists (or existed:
 *                        a dedupe key keeps holding for its TTL after its job ended)
 * @param created         {@code true} when this call created the job
 * @param ownerState      for a duplicate: the state of the job named by {@link #id()}, or {@code null} when that job
 *                        no longer exists (purged after it ended; its dedupe key still holds)
 * @param heldUntilMillis for a duplicate by dedupe key whose job has ended: until when the key holds (epoch ms,
 *                        Redis clock); -1 otherwise
 */
public record EnqueueResult(String id, boolean created, JobState ownerState, long heldUntilMillis) {
    /** A result without details about the owner. */
    public EnqueueResult(String id, boolean created) {
        this(id, created, null, -1);
    }

    /** Until when the dedupe key holds, for a duplicate whose owner has ended; else {@code null}. */
    public java.time.Instant heldUntil() {
        return heldUntilMillis >= 0 ? java.time.Instant.ofEpochMilli(heldUntilMillis) : null;
    }

    /** {@code true} when nothing was created because the job (or its dedupe key) already existed. */
    public boolean duplicate() {
        return !created;
    }

    /** Two results are equal when they name the same job with the same outcome (owner details aside). */
    @Override
    public boolean equals(Object o) {
        return o instanceof EnqueueResult r && r.id.equals(id) && r.created == created;
    }

    @Override
    public int hashCode() {
        return id.hashCode() * 31 + Boolean.hashCode(created);
    }

    @Override
    public String toString() {
        return (created ? "created " : "duplicate ") + id;
    }
}
