package dev.delayq.docs;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.delayq.ChangeResult;
import dev.delayq.DedupeMode;
import dev.delayq.DelayQ;
import dev.delayq.EnqueueResult;
import dev.delayq.Job;
import dev.delayq.JobInfo;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.PayloadCodec;
import dev.delayq.QueueStats;
import dev.delayq.Worker;
import dev.delayq.jackson.JacksonCodec;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

/** docs/jobs.md: what a job is, how it is enqueued, and how it is looked up and changed afterwards. */
final class Jobs {
    record Reminder(long userId, String text) {
    }

    private Jobs() {
    }

    static void enqueue(DelayQ dq) {
        // tag::enqueue[]
        JobQueue mail = dq.queue("mail");
        EnqueueResult result = mail.enqueue(Job.builder()
                .id("welcome:user-42")                       // 1-512 bytes; left out: 12 random base-62 characters
                .name("welcome")                              // picks the handler (Worker.Builder.handle)
                .payload("{\"user\":42}")                     // text (UTF-8) or bytes, up to 256 KiB by default
                .delay(Duration.ofHours(1))                   // or .runAt(Instant): on the Redis server's clock
                .maxAttempts(3)                               // this job's own; else the worker's retry policy
                .priority(5)                                  // 0 (default) to 9: higher first among due jobs
                .timeout(Duration.ofMinutes(2))               // this job's longest run
                .build());
        if (result.duplicate()) {                            // the id is taken: nothing was written
            System.out.println(result.id() + " was there already, " + result.ownerState());
        }
        // end::enqueue[]
    }

    static void batches(JobQueue mail) {
        // tag::batch[]
        List<Job> jobs = IntStream.range(0, 10_000)
                .mapToObj(i -> Job.builder().id("digest:" + i).payload("user " + i).delay(Duration.ofMinutes(5)).build())
                .toList();
        List<EnqueueResult> results = mail.enqueueAll(jobs);  // batched scripts, pipelined: one result per job, in order

        CompletableFuture<EnqueueResult> later = mail.enqueueAsync(
                Job.builder().payload("from a callback").runAt(Instant.parse("2030-01-01T09:00:00Z")).build());
        // end::batch[]
        later.join();
        results.size();
    }

    static void dedupe(JobQueue payments) {
        // tag::dedupe[]
        // One refund per order while one is pending, and for 10 minutes after its enqueue, whatever the job ids.
        payments.enqueue(Job.builder()
                .payload("{\"order\":88}")
                .dedupe("refund:order-88", Duration.ofMinutes(10))
                .build());                                    // a second one is a duplicate of the first
        ChangeResult cancelled = payments.cancelByDedupeKey("refund:order-88");
        // end::dedupe[]
        cancelled.changed();
    }

    static void debounce(JobQueue search) {
        // tag::debounce[]
        // Reindex a user 30 s after their last change: each change moves the one pending job, keeping its id.
        EnqueueResult r = search.enqueue(Job.builder()
                .payload("{\"user\":42,\"rev\":17}")
                .delay(Duration.ofSeconds(30))
                .dedupe("reindex:user-42", null)               // debounce: the TTL is optional
                .dedupeMode(DedupeMode.DEBOUNCE)
                .build());
        if (r.replaced()) {                                   // r.id(): the pending job, now with rev 17, due in 30 s
            System.out.println("moved " + r.id());
        }
        search.rescheduleByDedupeKey("reindex:user-42", Duration.ZERO);   // or run it now
        JobInfo pending = search.getByDedupeKey("reindex:user-42").orElseThrow();
        // end::debounce[]
        pending.id();
    }

    static void typedPayloads(DelayQ dq, ObjectMapper mapper) {
        // tag::typed[]
        JobQueue queue = dq.queue("reminders");
        PayloadCodec<Reminder> reminders = JacksonCodec.of(mapper, Reminder.class);
        PayloadCodec<List<Reminder>> batches = JacksonCodec.of(mapper, new TypeReference<List<Reminder>>() { });

        queue.enqueue(Job.builder().name("remind").payload(new Reminder(7, "renew"), reminders)
                .delay(Duration.ofDays(1)).build());
        Worker.builder(queue)
                .handle("remind", reminders, (ctx, r) -> notify(r.userId(), r.text()))
                .handle("remind-all", batches, (ctx, list) -> list.forEach(r -> notify(r.userId(), r.text())))
                .handle("cleanup", ctx -> cleanup(ctx.payloadUtf8()))
                .jobTimeout(Duration.ofMinutes(5))
                .build().start();
        // end::typed[]
    }

    static void operate(JobQueue orders) {
        // tag::operate[]
        JobInfo job = orders.get("order-731:timeout").orElseThrow();   // every stored field, whatever its state
        System.out.println(job.state() + " attempt " + job.attempt() + ", due " + job.dueAt() + ", " + job.lastError());

        orders.reschedule("order-731:timeout", Duration.ofMinutes(10)); // a scheduled job moved (Redis clock)
        orders.cancel("order-731:timeout");                              // a scheduled job deleted
        orders.inspector().delete("order-730:timeout");                              // any state but processing

        List<JobInfo> dead = orders.inspector().list(JobState.DEAD, 0, 50);          // one page, in index order
        long late = orders.inspector().stream(JobState.SCHEDULED)                    // every job, read page by page
                .filter(j -> j.dueAt().isBefore(Instant.now())).count();
        QueueStats stats = orders.inspector().stats();                               // counts, totals, paused, oldest due job
        // end::operate[]
        System.out.println(dead.size() + late + stats.scheduled());
    }

    private static void notify(long userId, String text) {
    }

    private static void cleanup(String what) {
    }
}
