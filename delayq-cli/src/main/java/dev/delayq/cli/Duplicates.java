package dev.delayq.cli;

import dev.delayq.EnqueueResult;
import dev.delayq.JobState;
import java.util.Map;

/**
 * What a duplicate enqueue says about the job that owns its id or dedupe key when that job has ended or no longer
 * exists: a dedupe key keeps holding for its TTL after its job ended (and after the job was purged), so without
 * this an operator would look for a job that is not there.
 */
final class Duplicates {
    /** The {@code ownerState} of a duplicate whose owner no longer exists. */
    static final String GONE = "gone";

    private Duplicates() {
    }

    /**
     * What follows {@code duplicate <owner id>}: nothing for a created job or an owner that is scheduled or running;
     * else {@code  (dedupe key held until <instant> by done job X)}, {@code  (dedupe key held until <instant> by job
     * X, which no longer exists)}, or for an id taken by a finished job {@code  (job X is done)}.
     */
    static String note(EnqueueResult r) {
        if (r.created()) {
            return "";
        }
        JobState owner = r.ownerState();
        if (r.heldUntil() != null) {
            return " (dedupe key held until " + r.heldUntil() + " by "
                    + (owner != null ? owner.label() + " job " + r.id() + ")" : "job " + r.id() + ", which no longer exists)");
        }
        if (owner == null) {
            return " (job " + r.id() + " no longer exists)";
        }
        return owner == JobState.DONE || owner == JobState.DEAD ? " (job " + r.id() + " is " + owner.label() + ")" : "";
    }

    /**
     * Adds {@code ownerState} (the owner's state; {@value #GONE} when it no longer exists; {@code null} for a created
     * job) and {@code heldUntil} (until when the dedupe key of an ended owner holds, ISO-8601, else {@code null}).
     */
    static void put(Map<String, Object> m, EnqueueResult r) {
        m.put("ownerState", r == null || r.created() ? null : r.ownerState() != null ? r.ownerState().label() : GONE);
        m.put("heldUntil", r == null || r.created() || r.heldUntil() == null ? null : r.heldUntil().toString());
    }
}
