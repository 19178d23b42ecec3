package dev.delayq.internal.present;

import dev.delayq.JobState;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Which operation each job state allows, with the one message that refuses it: the command line's negative answers,
 * the dashboard's 409s and its buttons ({@code allowed} in a job's JSON) come from this table.
 *
 * <p>The scripts decide (a refusal is their {@code { -3, state }} reply, {@code ChangeResult.Status.WRONG_STATE});
 * this table says the same thing to people and must agree with them: {@code cancel.lua} cancels a scheduled job,
 * {@code delete.lua} deletes any job not leased, {@code reschedule.lua} moves a scheduled job, {@code retry_dead.lua}
 * revives a dead one.
 * {@code JobActionsScriptsTest} runs every operation in every state against Redis and holds the two together.
 */
public enum JobActions {
    /** Delete a job before it runs ({@code cancel.lua}). */
    CANCEL("cancel", "cancelled", EnumSet.of(JobState.SCHEDULED, JobState.WAITING)),
    /** Delete a job that no worker holds ({@code delete.lua}). */
    DELETE("delete", "deleted", EnumSet.of(JobState.SCHEDULED, JobState.DONE, JobState.DEAD, JobState.WAITING)),
    /** Move a scheduled job to another due time ({@code reschedule.lua}). */
    RESCHEDULE("reschedule", "rescheduled", EnumSet.of(JobState.SCHEDULED)),
    /** Make a scheduled job due now: a reschedule to now ({@code reschedule.lua}). */
    RUN_NOW("run-now", "run now", EnumSet.of(JobState.SCHEDULED)),
    /** Put a dead job back, due now, with fresh attempts ({@code retry_dead.lua}). */
    RETRY("retry", "retried", EnumSet.of(JobState.DEAD));

    private final String label;
    private final String done;
    private final Set<JobState> allowed;

    JobActions(String label, String done, Set<JobState> allowed) {
        this.label = label;
        this.done = done;
        this.allowed = allowed;
    }

    /** The operation's name as the dashboard's routes and a job's {@code allowed} list spell it: {@code run-now}. */
    public String label() {
        return label;
    }

    /** Whether a job in {@code state} may undergo this operation. */
    public boolean allows(JobState state) {
        return allowed.contains(state);
    }

    /**
     * What may be done to a job in this state: {@code only scheduled jobs can be cancelled}; for delete, which only a
     * running job refuses, {@code a worker is running it, and only scheduled, done or dead jobs can be deleted}.
     */
    public String rule() {
        // A job waiting for its parents (flows) may be cancelled and deleted too; the rule keeps its words of before
        // (the command line and the dashboard answer with them), which name the states most jobs are in.
        Set<JobState> named = EnumSet.copyOf(allowed);
        named.remove(JobState.WAITING);
        String states = words(named);
        return this == DELETE ? "a worker is running it, and only " + states + " jobs can be " + done
                : "only " + states + " jobs can be " + done;
    }

    /** The refusal of this operation for job {@code id} in {@code state}: {@code job 'ID' is done: only ...}. */
    public String refusal(String id, JobState state) {
        return refusalOf("job '" + id + "'", state);
    }

    /**
     * The refusal with another subject, e.g. {@code the job holding dedupe key 'K'}: {@code SUBJECT is STATE: RULE}.
     */
    public String refusalOf(String subject, JobState state) {
        return subject + " is " + state.label() + ": " + rule();
    }

    /** The labels of the operations a job in {@code state} allows, in this table's order. */
    public static List<String> allowedIn(JobState state) {
        List<String> out = new ArrayList<>();
        for (JobActions a : values()) {
            if (a.allows(state)) {
                out.add(a.label);
            }
        }
        return out;
    }

    /**
     * The operation with this label ({@code cancel}, {@code run-now}, case and {@code _} for {@code -} ignored).
     *
     * @throws IllegalArgumentException naming the value and the labels there are
     */
    public static JobActions of(String label) {
        String l = label == null ? "" : label.strip().toLowerCase(Locale.ROOT).replace('_', '-');
        for (JobActions a : values()) {
            if (a.label.equals(l)) {
                return a;
            }
        }
        throw new IllegalArgumentException("unknown job operation '" + label
                + "': use cancel, delete, reschedule, run-now or retry");
    }

    private static String words(Set<JobState> states) {
        List<String> w = states.stream().map(JobState::label).toList();
        if (w.size() == 1) {
            return w.get(0);
        }
        return String.join(", ", w.subList(0, w.size() - 1)) + " or " + w.get(w.size() - 1);
    }
}
