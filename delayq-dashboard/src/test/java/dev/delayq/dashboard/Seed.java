package dev.delayq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.ClaimOptions;
import dev.delayq.ClaimedJob;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import java.time.Duration;
import java.util.List;

/** Puts jobs into each state through the queue's own operations. */
final class Seed {
    private Seed() {
    }

    /** Jobs due in an hour. */
    static void scheduled(JobQueue q, String... ids) {
        for (String id : ids) {
            q.enqueue(Job.builder().id(id).payload("p-" + id).delay(Duration.ofHours(1)).build());
        }
    }

    /** Jobs that failed for good with {@code error}. */
    static void dead(JobQueue q, String error, String... ids) {
        for (ClaimedJob j : claimNow(q, ids)) {
            q.leases().fail(j.lease(), error, false, Duration.ZERO);
        }
    }

    /** Completed jobs. */
    static void done(JobQueue q, String... ids) {
        for (ClaimedJob j : claimNow(q, ids)) {
            q.leases().complete(j.lease());
        }
    }

    /** Jobs leased for ten minutes. */
    static void processing(JobQueue q, String... ids) {
        claimNow(q, ids);
    }

    private static List<ClaimedJob> claimNow(JobQueue q, String... ids) {
        for (String id : ids) {
            q.enqueue(Job.builder().id(id).payload("p-" + id).build());
        }
        List<ClaimedJob> claimed = q.leases().claim(ClaimOptions.of(ids.length, Duration.ofMinutes(10))).jobs();
        assertThat(claimed).extracting(ClaimedJob::id).containsExactlyInAnyOrder(ids);
        return claimed;
    }
}
