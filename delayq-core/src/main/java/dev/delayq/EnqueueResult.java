package dev.delayq;

/**
 * What an enqueue did: created the job, found a duplicate (same id, or same dedupe key while it holds) and changed
 * nothing, or (dedupe mode {@link DedupeMode#DEBOUNCE}) replaced the scheduled job that held the dedupe key.
 *
 * @param id              the created job's id; for a duplicate the id of the job that already exists (or existed:
 *                        a dedupe key keeps holding for its TTL after its job ended); for a replace the id of the job
 *                        replaced (the first one's: a replace keeps it)
 * @param created         {@code true} when this call created the job
 * @param ownerState      for a duplicate: the state of the job named by {@link #id()}, or {@code null} when that job
 *                        no longer exists (purged after it ended; its dedupe key still holds); for a replace
 *                        {@link JobState#SCHEDULED}
 * @param heldUntilMillis for a duplicate by dedupe key whose job has ended: until when the key holds (epoch ms,
 *                        Redis clock); -1 otherwise
 * @param replaced        {@code true} when this call replaced the payload, options and due time of job {@link #id()}
 *                        (debounce)
 */
public record EnqueueResult(String id, boolean created, JobState ownerState, long heldUntilMillis, boolean replaced) {
    /** A result that is not a replace. */
    public EnqueueResult(String id, boolean created, JobState ownerState, long heldUntilMillis) {
        this(id, created, ownerState, heldUntilMillis, false);
    }

    /** A result without details about the owner. */
    public EnqueueResult(String id, boolean created) {
        this(id, created, null, -1);
    }

    /** Until when the dedupe key holds, for a duplicate whose owner has ended; else {@code null}. */
    public java.time.Instant heldUntil() {
        return heldUntilMillis >= 0 ? java.time.Instant.ofEpochMilli(heldUntilMillis) : null;
    }

    /** {@code true} when nothing was created nor replaced because the job (or its dedupe key) already existed. */
    public boolean duplicate() {
        return !created && !replaced;
    }

    /** Two results are equal when they name the same job with the same outcome (owner details aside). */
    @Override
    public boolean equals(Object o) {
        return o instanceof EnqueueResult r && r.id.equals(id) && r.created == created && r.replaced == replaced;
    }

    @Override
    public int hashCode() {
        return id.hashCode() * 31 + Boolean.hashCode(created) * 2 + Boolean.hashCode(replaced);
    }

    @Override
    public String toString() {
        return (created ? "created " : replaced ? "replaced " : "duplicate ") + id;
    }
}
