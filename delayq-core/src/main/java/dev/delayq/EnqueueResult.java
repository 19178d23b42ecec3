package dev.delayq;

/**
 * What an enqueue did: created the job, or found a duplicate (same id, or same dedupe key while it
 * holds) and changed nothing.
 *
 * @param id      the created job's id, or for a duplicate the id of the job that already exists
 * @param created {@code true} when this call created the job
 */
public record EnqueueResult(String id, boolean created) {
    /** {@code true} when nothing was created because the job (or its dedupe key) already existed. */
    public boolean duplicate() {
        return !created;
    }

    @Override
    public String toString() {
        return (created ? "created " : "duplicate ") + id;
    }
}
