package dev.delayq.docs;

import dev.delayq.DelayQ;
import dev.delayq.FlowLinks;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.OnParentDead;
import java.time.Duration;

/** docs/flows.md: jobs that wait for other jobs. */
final class Flows {
    private Flows() {
    }

    static void fanIn(DelayQ dq) {
        // tag::fan-in[]
        JobQueue reports = dq.queue("reports");
        reports.enqueue(Job.builder().id("part-1").payload("{\"part\":1}").build());
        reports.enqueue(Job.builder().id("part-2").payload("{\"part\":2}").build());
        // Waits (JobState.WAITING) until both parts are done; then due 5 minutes later.
        reports.enqueue(Job.builder().id("summary").after("part-1", "part-2").delay(Duration.ofMinutes(5)).build());
        // A batch's callback: runs once both parts have finished, even if one went dead.
        reports.enqueue(Job.builder().id("cleanup").after("part-1", "part-2")
                .onParentDead(OnParentDead.IGNORE).build());
        FlowLinks links = reports.inspector().links("summary").orElseThrow();
        System.out.println(links.doneParents() + " done, " + links.pendingParents() + " pending");
        // end::fan-in[]
    }

    static void otherQueue(DelayQ dq) {
        // tag::after-in[]
        JobQueue payments = dq.queue("payments");
        JobQueue orders = dq.queue("orders");
        payments.enqueue(Job.builder().id("p7").payload("{\"order\":7}").build());
        // Waits for p7 of queue payments (on a cluster, in another slot); a worker of payments releases it.
        orders.enqueue(Job.builder().id("ship-7").afterIn("payments", "p7").build());
        // end::after-in[]
    }
}
