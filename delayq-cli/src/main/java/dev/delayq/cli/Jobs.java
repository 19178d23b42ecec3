package dev.delayq.cli;

import dev.delayq.ChangeResult;
import dev.delayq.internal.present.JobActions;

/** The negative answers of the commands that take a job id, worded the same everywhere. */
final class Jobs {
    private Jobs() {
    }

    /** {@code no job 'ID' in queue 'QUEUE'} (exit 1). */
    static CliException noJob(String queue, String id) {
        return new CliException(Exit.FAILED, "no job '" + id + "' in queue '" + queue + "'");
    }

    /** No job holds dedupe key {@code key} (exit 1, as {@link #noJob}). */
    static CliException noJobByKey(String queue, String key) {
        return new CliException(Exit.FAILED, "no job holds dedupe key '" + key + "' in queue '" + queue + "'");
    }

    /** {@link #refused} for a change by dedupe key. */
    static CliException refusedByKey(ChangeResult c, String queue, String key, JobActions action) {
        return switch (c.status()) {
            case CHANGED -> null;
            case NOT_FOUND -> noJobByKey(queue, key);
            case WRONG_STATE -> new CliException(Exit.FAILED,
                    action.refusalOf("the job holding dedupe key '" + key + "'", c.state()));
        };
    }

    /** The job id or {@code --dedupe-key} of a command that takes either: exactly one (exit 2 otherwise). */
    static void idOrKey(String id, String key, String verb) {
        if ((id == null) == (key == null)) {
            throw new IllegalArgumentException(id == null ? "give the id of the job to " + verb + ", or --dedupe-key KEY"
                    : "give either a job id or --dedupe-key, not both");
        }
    }

    /**
     * Turns a refused change into its message: no such job, or the action's refusal ({@link JobActions#refusal}:
     * {@code job 'ID' is <state>: only <allowed> jobs can be <verb>}) (exit 1); {@code null} when the change was made.
     */
    static CliException refused(ChangeResult c, String queue, String id, JobActions action) {
        return switch (c.status()) {
            case CHANGED -> null;
            case NOT_FOUND -> noJob(queue, id);
            case WRONG_STATE -> new CliException(Exit.FAILED, action.refusal(id, c.state()));
        };
    }
}
