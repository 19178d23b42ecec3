package dev.delayq.internal.present;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.JobState;
import org.junit.jupiter.api.Test;

/**
 * The table of which state allows which operation, and its one refusal each: the words the command line prints and the
 * dashboard answers with (JobActionsScriptsTest holds the table to the scripts).
 */
class JobActionsTest {
    @Test
    void eachStateAllowsWhatTheScriptsAllow() {
        assertThat(JobActions.allowedIn(JobState.SCHEDULED)).containsExactly("cancel", "delete", "reschedule", "run-now");
        assertThat(JobActions.allowedIn(JobState.PROCESSING)).isEmpty();
        assertThat(JobActions.allowedIn(JobState.DONE)).containsExactly("delete");
        assertThat(JobActions.allowedIn(JobState.DEAD)).containsExactly("delete", "retry");
    }

    @Test
    void oneRefusalPerOperationNamingTheJobItsStateAndWhatIsAllowed() {
        assertThat(JobActions.CANCEL.refusal("d1", JobState.DEAD)).isEqualTo("job 'd1' is dead: only scheduled jobs can be cancelled");
        assertThat(JobActions.RESCHEDULE.refusal("c1", JobState.DONE))
                .isEqualTo("job 'c1' is done: only scheduled jobs can be rescheduled");
        assertThat(JobActions.RUN_NOW.refusal("d1", JobState.DEAD)).isEqualTo("job 'd1' is dead: only scheduled jobs can be run now");
        assertThat(JobActions.RETRY.refusal("s1", JobState.SCHEDULED)).isEqualTo("job 's1' is scheduled: only dead jobs can be retried");
        assertThat(JobActions.DELETE.refusal("busy", JobState.PROCESSING)).isEqualTo("job 'busy' is processing: a worker is "
                + "running it, and only scheduled, done or dead jobs can be deleted");
        assertThat(JobActions.CANCEL.refusalOf("the job holding dedupe key 'k'", JobState.PROCESSING))
                .isEqualTo("the job holding dedupe key 'k' is processing: only scheduled jobs can be cancelled");
    }

    @Test
    void labelsAreTheRoutesNames() {
        for (JobActions a : JobActions.values()) {
            assertThat(JobActions.of(a.label())).isEqualTo(a);
        }
        assertThat(JobActions.of("RUN_NOW")).isEqualTo(JobActions.RUN_NOW);
        assertThatThrownBy(() -> JobActions.of("pause"))
                .hasMessage("unknown job operation 'pause': use cancel, delete, reschedule, run-now or retry");
    }
}
