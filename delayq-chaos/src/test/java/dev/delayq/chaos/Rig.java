package dev.delayq.chaos;

import dev.delayq.DelayQException;
import dev.delayq.EnqueueResult;
import dev.delayq.Job;
import dev.delayq.JobHandler;
import dev.delayq.JobQueue;
import dev.delayq.RetryPolicy;
import dev.delayq.Worker;
import dev.delayq.testkit.RedisServer;
import dev.delayq.testkit.Resp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Pieces the server-fault scenarios share: a worker wired to the checker with fast retries, a producer that
 * retries one id until Redis acknowledges it, and a raw SCAN of a private server.
 */
final class Rig {
    /**
     * Fast backoff so a drain after a fault phase takes seconds, and attempts and stalls enough that no fault can
     * exhaust a job: a claim reply lost to a torn connection is a stall (the lease expires unused), and since every
     * claim takes the head of the due set, the same few jobs can meet several tears in a row (with the default of 5
     * stalls, scenario 5c at full size sends 152 of 6,000 jobs to dead, "lease expired 6 times").
     */
    static final RetryPolicy FAST = RetryPolicy.builder().maxAttempts(1000).maxStalls(1000).base(Duration.ofMillis(50))
            .cap(Duration.ofMillis(500)).build();

    private Rig() {
    }

    /** An in-process worker whose runs and outcomes the checker hears. */
    static Worker worker(JobQueue q, Checker checker, String name, int concurrency, JobHandler handler) {
        return Worker.builder(q, checker.timed(handler))
                .name(name)
                .concurrency(concurrency)
                .batchSize(50)
                .leaseDuration(Duration.ofSeconds(2))
                .retryPolicy(FAST)
                .shutdownGrace(Duration.ofSeconds(2))
                .maxIdleSleep(Duration.ofSeconds(1))
                .listener(checker.listener())
                .build();
    }

    /**
     * Enqueues {@code job} (which has an id) until Redis acknowledges it or the deadline passes. Every error goes
     * to {@code onError} and makes the id uncertain; a retry of the same id returns created or
     * duplicate, either of which means the job exists.
     *
     * @return the acknowledged result, or {@code null} when the deadline passed first
     */
    static EnqueueResult enqueueUntilAcked(JobQueue q, Job job, Checker checker, Consumer<DelayQException> onError,
                                           long deadlineNanos) {
        while (true) {
            try {
                EnqueueResult r = q.enqueue(job);
                checker.acked(job.id());
                return r;
            } catch (DelayQException e) {
                checker.uncertain(job.id());
                onError.accept(e);
                if (System.nanoTime() > deadlineNanos) {
                    return null;
                }
                // Pacing of the producer's own retries while Redis is down, not a wait for a condition.
                LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
            }
        }
    }

    /** Every key of the server (SCAN over a raw connection), as raw bytes decoded as ISO-8859-1. */
    static List<String> scanKeys(RedisServer server) {
        List<String> keys = new ArrayList<>();
        try (Resp r = server.connect()) {
            String cursor = "0";
            do {
                @SuppressWarnings("unchecked")
                List<Object> page = (List<Object>) r.callRaw("SCAN", cursor, "COUNT", "1000");
                cursor = new String((byte[]) page.get(0), StandardCharsets.US_ASCII);
                @SuppressWarnings("unchecked")
                List<Object> names = (List<Object>) page.get(1);
                for (Object k : names) {
                    keys.add(new String((byte[]) k, StandardCharsets.ISO_8859_1));
                }
            } while (!cursor.equals("0"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return keys;
    }
}
