package dev.delayq.docs;

import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobEvent;
import dev.delayq.JobQueue;
import dev.delayq.Limits;
import dev.delayq.Worker;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** docs/flow-control.md: limits, priorities, job timeouts, progress, pause, events. */
final class FlowControl {
    private static final Logger log = LoggerFactory.getLogger(FlowControl.class);

    private FlowControl() {
    }

    static void limits(DelayQ dq) throws Exception {
        // tag::flow-control[]
        JobQueue refunds = dq.queue("refunds");
        refunds.inspector().limits(Limits.rate(50, Duration.ofSeconds(1)).concurrency(10));  // Limits.none() removes them
        refunds.enqueue(Job.builder().id("refund-88").payload("{\"order\":88}")
                .priority(9)                                   // 0 (default) to 9: higher first among due jobs
                .timeout(Duration.ofMinutes(2))                // this job's run time limit
                .build());
        Worker.builder(refunds, ctx -> {
                    ctx.progress(40);                          // or a text: ctx.progress("{\"rows\":1200}")
                    refund(ctx.payloadUtf8());
                })
                .jobTimeout(Duration.ofMinutes(5))             // for jobs without their own
                .build().start();

        refunds.inspector().events(true);                                  // record every state change (the last 10,000)
        try (AutoCloseable feed = refunds.inspector().events().listen("$", e -> log.info("{} {}", e.type(), e.jobId()))) {
            List<JobEvent> page = refunds.inspector().events().read("0", 100);   // or page through what is kept
            // ...
        }
        // end::flow-control[]
    }

    static void pause(JobQueue refunds) {
        // tag::pause[]
        refunds.inspector().pause();        // no worker claims the queue's jobs now; running ones finish, enqueues go on
        refunds.inspector().resume();       // idle workers wake at once and the backlog runs
        // end::pause[]
    }

    private static void refund(String payload) {
    }
}
