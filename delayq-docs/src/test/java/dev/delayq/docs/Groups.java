package dev.delayq.docs;

import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.Limits;
import java.time.Duration;

/** docs/groups.md: groups, per-group limits and weights. */
final class Groups {
    private Groups() {
    }

    static void groups(JobQueue queue, String json) {
        // tag::groups[]
        queue.enqueue(Job.builder().group("tenant-42").payload(json).build());
        queue.inspector().groupLimits(Limits.ofConcurrency(5));              // at most 5 running per group
        queue.inspector().groupLimits("tenant-7", Limits.rate(100, Duration.ofMinutes(1)));  // tenant-7's own rate
        queue.inspector().groupWeight("tenant-9", 3);                        // 3 jobs per turn
        // end::groups[]
    }
}
