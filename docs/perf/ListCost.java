// What a page of completed jobs costs from an offset (docs/perf/journal.md, "Completed jobs kept one index entry per
// acknowledgement ..."): enqueues, claims and completes N jobs of 100 B in calls of 1,000 through the public API, then
// times JobQueue.list(DONE, offset, 50) at offsets 0, N / 2 and N - 50 (best of five), and purges them.
//   redis-server --port 6411 --save "" --daemonize yes
//   java -cp delayq-cli/target/delayq.jar docs/perf/ListCost.java redis://127.0.0.1:6411 100000
// (its own prefix on that Redis: "lc" and a number; nothing else is touched).
import dev.delayq.*;
import java.time.Duration;
import java.util.*;

public class ListCost {
    public static void main(String[] a) throws Exception {
        if (a.length != 2) {
            System.err.println("usage: java -cp delayq.jar docs/perf/ListCost.java REDIS_URL JOBS");
            System.exit(2);
        }
        int n = Integer.parseInt(a[1]);
        try (DelayQ dq = DelayQ.connect(a[0], "lc" + System.nanoTime())) {
            JobQueue q = dq.queue("q");
            for (int i = 0; i < n; i += 1000) {
                List<Job> jobs = new ArrayList<>();
                for (int j = i; j < Math.min(n, i + 1000); j++) jobs.add(Job.builder().id("job-" + j).payload("x".repeat(100)).build());
                q.enqueueAll(jobs);
                List<ClaimedJob> got = q.leases().claim(ClaimOptions.of(1000, Duration.ofSeconds(60))).jobs();
                q.leases().completeAllAsync(got.stream().map(ClaimedJob::lease).toList()).join();
            }
            System.out.println("done " + q.stats().done());
            for (long off : new long[] {0, n / 2, n - 50}) {
                long best = Long.MAX_VALUE;
                for (int r = 0; r < 5; r++) {
                    long t0 = System.nanoTime();
                    List<JobInfo> page = q.list(JobState.DONE, off, 50);
                    best = Math.min(best, System.nanoTime() - t0);
                    if (page.size() != 50) throw new AssertionError(page.size());
                }
                System.out.printf("offset %d: best of 5 %.1f ms%n", off, best / 1e6);
            }
            q.purge(Duration.ZERO);
        }
    }
}
