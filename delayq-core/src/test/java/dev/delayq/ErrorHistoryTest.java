package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A job's error history on a real Redis: kept by fail (the last 10, newest first), shown by the inspector, and gone
 * with the job's record whichever way the record goes (delete, cancel, purge, completion without retention), so no
 * errors key outlives the jobs that failed; a job that never fails leaves no trace of it.
 */
class ErrorHistoryTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private TestSupport t;

    @BeforeEach
    void open() {
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
    }

    @AfterEach
    void close() {
        t.close();
    }

    private boolean errorsKey(String queue) {
        return ((Number) t.target().call("EXISTS", REDIS.prefix() + ":{" + queue + "}:errors")).longValue() == 1;
    }

    private long histories(String queue) {
        return ((Number) t.target().call("HLEN", REDIS.prefix() + ":{" + queue + "}:errors")).longValue();
    }

    /** Claims job {@code id} (due now) and fails it with {@code error}; retried at once unless {@code retryable} is false. */
    private static FailResult failOnce(JobQueue q, String id, String error, boolean retryable) {
        q.reschedule(id, Duration.ZERO);
        ClaimedJob j = q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1))).jobs().get(0);
        assertThat(j.id()).isEqualTo(id);
        return q.leases().fail(j.lease(), error, retryable, Duration.ofHours(1));
    }

    @Test
    void threeFailuresShowThreeEntriesNewestFirstAndTheEleventhKeepsTen() {
        JobQueue q = t.queue(t.client(), "eh");
        q.enqueue(Job.builder().id("a").maxAttempts(20).build());
        long before = t.redisNow();
        for (int i = 1; i <= 3; i++) {
            failOnce(q, "a", "boom " + i, true);
        }
        List<JobError> three = q.inspector().errors("a");
        assertThat(three).extracting(JobError::attempt).containsExactly(3, 2, 1);
        assertThat(three).extracting(JobError::error).containsExactly("boom 3", "boom 2", "boom 1");
        assertThat(three).allMatch(e -> e.at().toEpochMilli() >= before && e.at().toEpochMilli() <= t.redisNow());
        assertThat(q.get("a").orElseThrow().lastError()).isEqualTo("boom 3");

        for (int i = 4; i <= 11; i++) {
            failOnce(q, "a", i == 7 ? "a: colon, digits 12:34:5 and\nnew lines" : "boom " + i, true);
        }
        List<JobError> ten = q.inspector().errors("a");
        assertThat(ten).hasSize(10).extracting(JobError::attempt).containsExactly(11, 10, 9, 8, 7, 6, 5, 4, 3, 2);
        assertThat(ten.get(4).error()).isEqualTo("a: colon, digits 12:34:5 and\nnew lines");
        assertThat(q.inspector().errors("nope")).isEmpty();
        assertThat(q.inspector().check().clean()).isTrue();

        assertThat(q.inspector().delete("a").status()).isEqualTo(ChangeResult.Status.CHANGED);
        assertThat(q.inspector().errors("a")).isEmpty();
        assertThat(errorsKey("eh")).as("no errors key left once the job is deleted").isFalse();
        // A history left behind (an earlier version deleted the record without it) is not shown without its job.
        t.target().call("HSET", REDIS.prefix() + ":{eh}:errors", "a", "1:1700000000000:3:old");
        assertThat(q.inspector().errors("a")).isEmpty();
    }

    @Test
    void aJobThatNeverFailsWritesNoHistory() {
        JobQueue q = t.queue(t.client(c -> c.doneRetention(Duration.ZERO)), "clean");
        q.enqueue(Job.builder().id("ok").build());
        ClaimedJob j = q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1))).jobs().get(0);
        q.leases().complete(j.lease());
        assertThat(q.inspector().errors("ok")).isEmpty();
        assertThat(errorsKey("clean")).isFalse();
    }

    @Test
    void theHistoryGoesWithTheRecordWhenCancelledPurgedOrCompletedWithoutRetention() {
        // Completed without retention after a failure: the record goes at once, and its history with it.
        JobQueue q = t.queue(t.client(c -> c.doneRetention(Duration.ZERO).deadRetention(Duration.ZERO)), "gone");
        q.enqueue(Job.builder().id("retried").maxAttempts(5).build());
        failOnce(q, "retried", "first", true);
        assertThat(histories("gone")).isEqualTo(1);
        q.reschedule("retried", Duration.ZERO);
        q.leases().complete(q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1))).jobs().get(0).lease());
        assertThat(q.get("retried")).isEmpty();
        assertThat(errorsKey("gone")).as("completed without retention").isFalse();

        // Cancelled while waiting for its retry.
        q.enqueue(Job.builder().id("waiting").maxAttempts(5).build());
        failOnce(q, "waiting", "first", true);
        assertThat(q.inspector().cancel("waiting").status()).isEqualTo(ChangeResult.Status.CHANGED);
        assertThat(errorsKey("gone")).as("cancelled").isFalse();

        // Dead, then purged past the dead retention (0 here).
        q.enqueue(Job.builder().id("dies").maxAttempts(1).build());
        assertThat(failOnce(q, "dies", "fatal", false).outcome()).isEqualTo(FailResult.Outcome.DEAD);
        assertThat(q.inspector().errors("dies")).extracting(JobError::error).containsExactly("fatal");
        assertThat(q.inspector().check().clean()).isTrue();
        q.inspector().purge(Duration.ZERO);
        assertThat(q.get("dies")).isEmpty();
        assertThat(errorsKey("gone")).as("purged").isFalse();

        // Done with retention, then purged: the done path too (a job that failed once, then completed).
        JobQueue kept = t.queue(t.client(), "kept");
        kept.enqueue(Job.builder().id("k").maxAttempts(5).build());
        failOnce(kept, "k", "once", true);
        kept.reschedule("k", Duration.ZERO);
        kept.leases().complete(kept.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1))).jobs().get(0).lease());
        assertThat(kept.inspector().errors("k")).as("kept while the done job is").hasSize(1);
        assertThat(kept.inspector().check().clean()).isTrue();
        kept.inspector().purge(Duration.ZERO);
        assertThat(kept.get("k")).isEmpty();
        assertThat(errorsKey("kept")).as("purged from done").isFalse();
    }
}
