package dev.delayq.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.delayq.DelayQ;
import dev.delayq.JobInfo;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.Worker;
import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The README's example, run against a private Redis: its time-out job is enqueued once and completed by its worker. */
class OrderTimeoutsTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.dedicated(b -> { });

    @Test
    void theTimeoutIsEnqueuedOnceAndItsWorkerCompletesItWithThePolicysAttempts() {
        try (DelayQ dq = OrderTimeouts.connect(REDIS.uri())) {
            JobQueue orders = dq.queue("orders");
            Worker worker = OrderTimeouts.startWorker(orders);

            assertThat(OrderTimeouts.scheduleTimeout(orders, 731, Duration.ofMillis(300)).created()).isTrue();
            assertThat(OrderTimeouts.scheduleTimeout(orders, 731, Duration.ofMillis(300)).duplicate()).isTrue();

            await().atMost(Duration.ofSeconds(30)).until(
                    () -> orders.get("order-731:timeout").map(JobInfo::state).orElse(null) == JobState.DONE);
            JobInfo job = orders.get("order-731:timeout").orElseThrow();
            assertThat(job.attempt()).isEqualTo(1);
            assertThat(job.payloadUtf8()).isEqualTo("731");
            assertThat(worker.isRunning()).isTrue();
        }
    }
}
