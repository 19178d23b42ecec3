package dev.delayq.docs;

import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobContext;
import dev.delayq.JobInfo;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.NonRetryableException;
import dev.delayq.RetryLaterException;
import dev.delayq.RetryPolicy;
import dev.delayq.Worker;
import java.time.Duration;

/** docs/retries.md: failed attempts, retries with backoff, dead jobs. */
final class Retries {
    private Retries() {
    }

    static Worker policy(DelayQ dq) {
        // tag::policy[]
        RetryPolicy policy = RetryPolicy.builder()
                .maxAttempts(10)                      // attempts in all, the first included [5]
                .base(Duration.ofSeconds(1))          // the shortest retry delay [5 s]
                .cap(Duration.ofMinutes(30))          // the longest [1 h]
                .maxStalls(20)                        // expired leases a job survives; they use no attempts [5]
                .build();
        JobQueue webhooks = dq.queue("webhooks");
        Worker worker = Worker.builder(webhooks, Retries::deliver)
                .retryPolicy(policy)                  // else the client's: DelayQ.builder().retryPolicy(...)
                .build()
                .start();
        webhooks.enqueue(Job.builder().payload("https://example.com/hook").maxAttempts(3).build());  // its own: 3
        // end::policy[]
        return worker;
    }

    // tag::outcomes[]
    static void deliver(JobContext ctx) throws Exception {
        int status = post(ctx.payloadUtf8());
        if (status == 410) {                          // retrying cannot help: dead at once, with this error
            throw new NonRetryableException("endpoint gone (HTTP 410)");
        }
        if (status == 429) {                          // the next attempt in 1 minute, not at the policy's time
            throw new RetryLaterException(Duration.ofMinutes(1), "rate limited (HTTP 429)");
        }
        if (status >= 500) {                          // any other exception: retried with backoff while attempts remain
            throw new IllegalStateException("HTTP " + status);
        }
    }                                                 // returning normally completes the job
    // end::outcomes[]

    static void deadJobs(JobQueue webhooks) {
        // tag::dead[]
        for (JobInfo dead : webhooks.inspector().list(JobState.DEAD, 0, 100)) {
            System.out.println(dead.id() + " died after " + dead.attempt() + " attempt(s): " + dead.lastError());
        }
        webhooks.inspector().retryDead("hook-17");                // due now, with a fresh budget of attempts
        long retried = webhooks.inspector().retryAllDead();
        // end::dead[]
        System.out.println(retried);
    }

    private static int post(String url) {
        return 200;
    }
}
