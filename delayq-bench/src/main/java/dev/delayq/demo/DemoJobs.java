package dev.delayq.demo;

import dev.delayq.JobContext;
import dev.delayq.RetryPolicy;
import java.time.Duration;

/** The demo's workload: which jobs fail, and how long work takes. Shared by every demo worker process. */
final class DemoJobs {
    /** Work time of the doomed worker's jobs. */
    static final long SLOW_WORK_MS = 50;
    /** Retries come quickly in the demo so that it finishes in seconds. */
    static final RetryPolicy POLICY = RetryPolicy.builder().maxAttempts(3).base(Duration.ofMillis(200))
            .cap(Duration.ofSeconds(1)).build();

    private DemoJobs() {
    }

    static String id(int i) {
        return "order-" + i;
    }

    static int index(String id) {
        return Integer.parseInt(id.substring(id.indexOf('-') + 1));
    }

    /** One job in ten fails its first attempt (and succeeds on retry). */
    static boolean flaky(int i) {
        return i % 10 == 3;
    }

    /** One job in two hundred always fails: dead after its attempts. */
    static boolean poison(int i) {
        return i % 200 == 7;
    }

    static void maybeFail(JobContext job) {
        int i = index(job.id());
        if (poison(i)) {
            throw new IllegalStateException("order " + i + ": payment provider rejects it every time");
        }
        if (flaky(i) && job.attempt() == 1) {
            throw new IllegalStateException("order " + i + ": payment provider timed out");
        }
    }
}
