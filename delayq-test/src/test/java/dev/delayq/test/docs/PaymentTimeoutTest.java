package dev.delayq.test.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.Worker;
import dev.delayq.test.DelayqExtension;
import dev.delayq.test.DelayqTestJobs;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The JUnit 5 example of docs/spring-boot.md ("Testing an application's jobs"). */
// tag::extension[]
@ExtendWith(DelayqExtension.class)
class PaymentTimeoutTest {
    @Test
    void aTimeoutDueInThirtyMinutesRunsNow(DelayQ delayQ, DelayqTestJobs jobs) {
        JobQueue timeouts = delayQ.queue("orders");
        timeouts.enqueue(Job.builder().id("order-1:timeout").payload("1").delay(Duration.ofMinutes(30)).build());
        List<String> cancelled = new CopyOnWriteArrayList<>();
        try (Worker worker = Worker.builder(timeouts, ctx -> cancelled.add(ctx.payloadUtf8())).build().start()) {
            jobs.runDueNow("orders");                            // due now instead of in 30 minutes
            jobs.awaitDrained("orders", Duration.ofSeconds(10)); // nothing scheduled or running any more
        }
        assertThat(cancelled).containsExactly("1");
    }
}
// end::extension[]
