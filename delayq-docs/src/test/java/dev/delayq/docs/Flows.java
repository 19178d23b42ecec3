package dev.delayq.docs;

import dev.delayq.DelayQ;
import dev.delayq.FlowLinks;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.OnParentDead;
import dev.delayq.PayloadCodec;
import dev.delayq.Worker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

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

    /** The results example: three parts each return a count, the total adds them up; returns the started worker. */
    static Worker results(DelayQ dq) {
        // tag::results[]
        JobQueue reports = dq.queue("totals");
        Worker worker = Worker.builder(reports)
                // A part returns its result: kept with the done job (64 KiB at most) for the done retention.
                .handleReturning("count", PayloadCodec.utf8(), ctx -> Integer.toString(ctx.payloadUtf8().length()))
                .handle("total", ctx -> {
                    int sum = 0;
                    for (Map.Entry<String, byte[]> part : ctx.parentResults().entrySet()) { // id -> result
                        sum += Integer.parseInt(new String(part.getValue(), StandardCharsets.UTF_8));
                    }
                    ctx.result(Integer.toString(sum)); // or ctx.result(bytes), ctx.result(codec, value)
                })
                .build().start();
        for (String part : new String[] {"a", "bb", "ccc"}) {
            reports.enqueue(Job.builder().id("count-" + part).name("count").payload(part).build());
        }
        reports.enqueue(Job.builder().id("total").name("total").after("count-a", "count-bb", "count-ccc").build());
        // Later: reports.get("total").orElseThrow().result() is "6" in UTF-8 (delayq job totals total --json: "result")
        // end::results[]
        return worker;
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
