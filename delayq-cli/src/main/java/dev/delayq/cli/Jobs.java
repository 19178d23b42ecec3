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
