package dev.delayq.demo;

import dev.delayq.CheckReport;
import dev.delayq.QueueStats;
import java.io.PrintWriter;
import org.HdrHistogram.Histogram;

/** What a demo run found, and how it is printed. */
record DemoReport(int jobs, int workers, long enqueueNanos, QueueStats stats, long duplicates, Histogram lagMicros,
                  boolean sameMsInOrder, int sameMsGroup, long killedAtDone, CheckReport check, String redisVersion) {

    long lost() {
        return jobs - stats.done() - stats.dead();
    }

    boolean passed() {
        return lost() == 0 && duplicates == 0 && check.clean();
    }

    void print(PrintWriter out, String where, double seconds) {
        out.println();
        out.printf("delayq demo: %,d jobs, %d workers (one killed with SIGKILL mid-run), Redis %s (%s)%n", jobs, workers,
                redisVersion, where);
        out.printf("  %-14s %,10d   in %.2f s (%,.0f jobs/s, batched)%n", "enqueued", jobs, enqueueNanos / 1e9,
                jobs / Math.max(1e-9, enqueueNanos / 1e9));
        out.printf("  %-14s %,10d%n", "completed", stats.done());
        out.printf("  %-14s %,10d   failed attempts rescheduled with backoff%n", "retried", stats.total("retried"));
        out.printf("  %-14s %,10d   jobs that failed every attempt (%d), kept with their error%n", "dead", stats.dead(),
                DemoJobs.POLICY.maxAttempts());
        out.printf("  %-14s %,10d   leases of the killed worker, run again after they expired%s%n", "recovered",
                stats.total("recovered"), killedAtDone >= 0 ? "" : " (the worker was not killed: too few jobs)");
        out.printf("  %-14s %,10d   claims run more than once (one fencing token, two runs)%n", "duplicates", duplicates);
        out.printf("  %-14s %,10d   enqueued but neither completed nor dead%n", "lost", lost());
        out.printf("  %-14s p50 %.1f ms, p99 %.1f ms, max %.0f ms (due time to handler start, on Redis's clock)%n",
                "dispatch lag", lagMicros.getValueAtPercentile(50) / 1000.0,
                lagMicros.getValueAtPercentile(99) / 1000.0, lagMicros.getMaxValue() / 1000.0);
        out.printf("  %-14s %,.0f jobs/s (%,d jobs finished %.1f s after the first fell due, retries and recoveries "
                + "included)%n", "throughput", (stats.done() + stats.dead()) / Math.max(1e-9, seconds),
                stats.done() + stats.dead(), seconds);
        out.printf("  %-14s %s%n", "same-ms order", sameMsInOrder
                ? "yes: the " + sameMsGroup + " jobs due at one millisecond were claimed in enqueue order"
                : "NO: jobs due at the same millisecond were claimed out of enqueue order");
        out.printf("  %-14s %s%n", "consistency", check.clean() ? "check passed (" + check.records() + " records)"
                : check.problems().size() + " problems: " + check.problems().get(0));
        out.printf("  %-14s %s%n", "result", passed() ? "PASS: nothing lost, nothing claimed twice" : "FAIL");
        out.flush();
    }
}
