package dev.delayq.bench;

import dev.delayq.ClaimBatch;
import dev.delayq.ClaimOptions;
import dev.delayq.ClaimedJob;
import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.Limits;
import java.time.Duration;

/**
 * Loads delayq's scripts into Redis before a timed phase: on a fresh server the first pipelined calls would
 * each meet NOSCRIPT and load the script again, a one-time cost that is not what the workloads measure.
 */
final class Warmup {
    private Warmup() {
    }

    /**
     * Enqueues, claims and completes one job on a side queue next to {@code queue} (its keys are distinct, so
     * the measured queue stays empty and its consumers never see the job).
     */
    static void scripts(DelayQ client, String queue) {
        scripts(client, queue, false);
    }

    /**
     * As {@link #scripts(DelayQ, String)}; with {@code flow} ({@code --flow}) the measured queue also gets limits that
     * never bind and its event stream, before its consumers start.
     */
    static void scripts(DelayQ client, String queue, boolean flow) {
        if (flow) {
            JobQueue q = client.queue(queue);
            q.inspector().limits(Limits.rate(BenchConfig.FLOW_RATE, Duration.ofSeconds(1)).concurrency(BenchConfig.FLOW_CONCURRENCY));
            q.inspector().events(true);
        }
        JobQueue side = client.queue(queue + "-warmup");
        side.enqueue(Job.builder().payload(BenchContext.PAYLOAD).build());
        ClaimBatch batch = side.leases().claim(ClaimOptions.of(1, Duration.ofSeconds(30)));
        for (ClaimedJob job : batch.jobs()) {
            side.leases().complete(job.lease());
        }
    }
}
