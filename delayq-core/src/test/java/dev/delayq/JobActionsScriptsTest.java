package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.internal.present.JobActions;
import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The table of which state allows which operation ({@link JobActions}, what the command line and the dashboard tell
 * people) agrees with the scripts that decide: every operation on a job in every state, against Redis, changes the
 * job exactly where the table allows it, and otherwise is refused naming the job's state.
 */
class JobActionsScriptsTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private TestSupport t;
    private DelayQ dq;

    @BeforeEach
    void open() {
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
        dq = t.client();
    }

    @AfterEach
    void close() {
        t.close();
    }

    @Test
    void everyOperationInEveryStateIsRefusedExactlyWhereTheTableSays() {
        for (JobActions action : JobActions.values()) {
            for (JobState state : JobState.values()) {
                JobQueue q = t.queue(dq, "a-" + action.label() + "-" + state.label());
                String id = jobIn(q, state);
                ChangeResult r = switch (action) {
                    case CANCEL -> q.cancel(id);
                    case DELETE -> q.inspector().delete(id);
                    case RESCHEDULE -> q.reschedule(id, Duration.ofHours(2));
                    case RUN_NOW -> q.reschedule(id, Duration.ZERO);
                    case RETRY -> q.inspector().retryDead(id);
                };
                String what = action.label() + " of a " + state.label() + " job";
                if (action.allows(state)) {
                    assertThat(r.status()).as(what).isEqualTo(ChangeResult.Status.CHANGED);
                } else {
                    assertThat(r.status()).as(what).isEqualTo(ChangeResult.Status.WRONG_STATE);
                    assertThat(r.state()).as(what).isEqualTo(state);
                    assertThat(q.get(id).orElseThrow().state()).as(what + ": unchanged").isEqualTo(state);
                }
            }
        }
    }

    /** A job of {@code q} (a queue of its own) brought to {@code state} through the worker's primitives. */
    private static String jobIn(JobQueue q, JobState state) {
        if (state == JobState.SCHEDULED) {
            return q.enqueue(Job.builder().id("j").delay(Duration.ofHours(1)).build()).id();
        }
        if (state == JobState.WAITING) {
            q.enqueue(Job.builder().id("parent").delay(Duration.ofHours(1)).build());
            return q.enqueue(Job.builder().id("j").after("parent").build()).id();
        }
        q.enqueue(Job.builder().id("j").build());
        ClaimedJob claimed = q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1))).jobs().get(0);
        switch (state) {
            case DONE -> assertThat(q.leases().complete(claimed.lease())).isEqualTo(Ack.OK);
            case DEAD -> assertThat(q.leases().fail(claimed.lease(), "boom", false, Duration.ZERO).outcome())
                    .isEqualTo(FailResult.Outcome.DEAD);
            default -> {
                // processing: leased
            }
        }
        assertThat(q.get("j").orElseThrow().state()).isEqualTo(state);
        return "j";
    }
}
