package dev.delayq.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.QueueStats;
import dev.delayq.RetryPolicy;
import dev.delayq.Worker;
import dev.delayq.testkit.RedisServer;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The JUnit 5 extension and the helpers, as an application's test uses them: a job due in 30 minutes runs now, a
 * retry waiting an hour for its backoff runs now, a queue not drained in time fails naming its counts.
 */
@ExtendWith(DelayqExtension.class)
class DelayqExtensionTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void aJobDueInThirtyMinutesRunsNowAndTheQueueIsDrained(DelayQ delayQ, DelayqTestJobs jobs, RedisServer redis) {
        assertThat(delayQ.server()).isEqualTo(redis.uri());
        JobQueue q = delayQ.queue("orders");
        q.enqueue(Job.builder().id("order-1:timeout").payload("1").delay(Duration.ofMinutes(30)).build());
        q.enqueue(Job.builder().id("order-2:timeout").payload("2").delay(Duration.ofMinutes(30)).build());
        Queue<String> ran = new ConcurrentLinkedQueue<>();
        try (Worker w = Worker.builder(q, ctx -> ran.add(ctx.id())).build().start()) {
            assertThat(jobs.runDueNow("orders")).isEqualTo(2);
            QueueStats drained = jobs.awaitDrained("orders", WAIT);
            assertThat(drained.done()).isEqualTo(2);
            assertThat(ran).containsExactlyInAnyOrder("order-1:timeout", "order-2:timeout");
        }
        assertThat(jobs.runDueNow("orders", "order-1:timeout")).as("done: nothing to run").isFalse();
    }

    @Test
    void drainRunsRetriesWaitingForTheirBackoffAtOnce(DelayQ delayQ, DelayqTestJobs jobs) {
        JobQueue q = delayQ.queue("flaky");
        q.enqueue(Job.builder().id("flaky-1").payload("x").build());
        AtomicInteger attempts = new AtomicInteger();
        try (Worker w = Worker.builder(q, ctx -> {
                    if (attempts.incrementAndGet() < 3) {
                        throw new IllegalStateException("not yet");
                    }
                }).retryPolicy(RetryPolicy.builder().maxAttempts(5).base(Duration.ofHours(1)).cap(Duration.ofHours(1)).build())
                .build().start()) {
            QueueStats drained = jobs.drain("flaky", WAIT);
            assertThat(drained.done()).isEqualTo(1);
            assertThat(attempts).hasValue(3);
            assertThat(q.get("flaky-1")).get().extracting(i -> i.state()).isEqualTo(JobState.DONE);
        }
    }

    @Test
    void aQueueNotDrainedInTimeFailsWithItsCounts(DelayqTestJobs jobs, DelayQ delayQ) {
        delayQ.queue("idle").enqueue(Job.builder().payload("x").delay(Duration.ofMinutes(30)).build());
        assertThatThrownBy(() -> jobs.awaitDrained("idle", Duration.ofMillis(200)))
                .isInstanceOf(AssertionError.class)
                .hasMessage("queue 'idle' was not drained within PT0.2S: 1 scheduled, 0 processing, 0 waiting for their parents, 0 done, 0 dead");
    }

    @Test
    void everyTestHasAPrefixOfItsOwn(DelayQ delayQ) {
        assertThat(delayQ.queue("orders").inspector().stats().scheduled()).as("nothing from the other tests").isZero();
    }
}
