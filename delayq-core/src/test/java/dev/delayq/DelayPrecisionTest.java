package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Due times are whole milliseconds, Redis's clock has microseconds: a delay or a retry backoff counted from a
 * floored "now" came out up to 1 ms short (found by the fault suite's poison scenario: a 200 ms backoff
 * retried after 199.9 ms). Counted from "now" rounded up, neither is ever shorter than asked.
 */
class DelayPrecisionTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private static final Duration DELAY = Duration.ofMillis(200);

    @Test
    void aDelayIsNeverShorterThanAsked() {
        try (DelayQ dq = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).build()) {
            JobQueue q = dq.queue("delay");
            for (int i = 0; i < 50; i++) {
                long before = micros(dq.serverTime());
                q.enqueue(Job.builder().id("e" + i).delay(DELAY).build());
                assertThat(q.get("e" + i).orElseThrow().dueAtMillis() * 1000).as("due of e%d, enqueued at %d us", i, before)
                        .isGreaterThanOrEqualTo(before + DELAY.toNanos() / 1000);
            }
            for (int i = 0; i < 50; i++) {
                q.enqueue(Job.builder().id("r" + i).build());
                long before = micros(dq.serverTime());
                q.reschedule("r" + i, DELAY);
                assertThat(q.get("r" + i).orElseThrow().dueAtMillis() * 1000).as("due of r%d, rescheduled at %d us", i, before)
                        .isGreaterThanOrEqualTo(before + DELAY.toNanos() / 1000);
            }
        }
    }

    @Test
    void aRetryIsNeverSoonerThanItsBackoff() {
        try (DelayQ dq = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).build()) {
            JobQueue q = dq.queue("backoff");
            for (int i = 0; i < 50; i++) {
                q.enqueue(Job.builder().id("f" + i).maxAttempts(3).build());
            }
            ClaimBatch batch = q.leases().claim(ClaimOptions.of(50, Duration.ofSeconds(30)));
            assertThat(batch.jobs()).hasSize(50);
            for (ClaimedJob job : batch.jobs()) {
                long before = micros(dq.serverTime());
                assertThat(q.leases().fail(job.lease(), "boom", true, DELAY).outcome()).isEqualTo(FailResult.Outcome.RETRY_SCHEDULED);
                assertThat(q.get(job.id()).orElseThrow().dueAtMillis() * 1000).as("retry of %s, failed at %d us", job.id(), before)
                        .isGreaterThanOrEqualTo(before + DELAY.toNanos() / 1000);
            }
        }
    }

    private static long micros(Instant t) {
        return t.getEpochSecond() * 1_000_000L + t.getNano() / 1000;
    }
}
