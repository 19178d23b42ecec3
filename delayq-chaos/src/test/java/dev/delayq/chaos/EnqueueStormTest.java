package dev.delayq.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQ;
import dev.delayq.EnqueueResult;
import dev.delayq.Job;
import dev.delayq.JobState;
import dev.delayq.JobQueue;
import dev.delayq.RetryPolicy;
import dev.delayq.Worker;
import dev.delayq.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Scenario 7, idempotent enqueue storm: 50 threads enqueue the same 1,000 ids 10 times each, in their own
 * seeded orders, while a worker drains them: exactly 1,000 jobs are created, every other enqueue answers
 * duplicate with the same id, and there are exactly 1,000 completions.
 */
class EnqueueStormTest {
    @Test
    void fiftyThreadsEnqueueingTheSameIdsCreateEachJobOnce() throws Exception {
        int threads = 50;
        int ids = 1_000;
        int rounds = Chaos.size(2, 10);
        Checker checker = new Checker("7-enqueue-storm");
        AtomicLong created = new AtomicLong();
        AtomicLong duplicate = new AtomicLong();
        AtomicLong wrongId = new AtomicLong();
        long started = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (RedisServer redis = RedisServer.start();
             DelayQ dq = DelayQ.builder().redis(redis.uri()).prefix("chaos").build()) {
            JobQueue q = dq.queue("storm");
            RetryPolicy quick = RetryPolicy.builder().base(Duration.ofMillis(50)).cap(Duration.ofMillis(200)).build();
            try (Worker worker = Worker.builder(q, checker.timed(job -> { })).concurrency(32).retryPolicy(quick)
                    .listener(checker.listener()).build().start()) {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    Random random = new Random(Chaos.SEED + t);
                    done.add(pool.submit(() -> {
                        List<Integer> order = new ArrayList<>();
                        for (int i = 0; i < ids; i++) {
                            order.add(i);
                        }
                        for (int round = 0; round < rounds; round++) {
                            Collections.shuffle(order, random);
                            for (int i : order) {
                                String id = "s" + i;
                                EnqueueResult r = q.enqueue(Job.builder().id(id).payload("storm " + i).build());
                                if (!r.id().equals(id)) {
                                    wrongId.incrementAndGet();
                                }
                                if (r.created()) {
                                    created.incrementAndGet();
                                    checker.acked(id);
                                } else {
                                    duplicate.incrementAndGet();
                                }
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get();
                }
                Awaitility.await("drain").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                        .until(() -> q.inspector().stats().done() == ids && checker.completions() == ids);
            }
            Checker.Verdict verdict = checker.check(q, JobState.DONE);
            long enqueues = (long) threads * ids * rounds;
            String line = verdict.line("jobs", ids, "faults", enqueues + " enqueues from " + threads + " threads",
                    "created", created.get(), "duplicate", duplicate.get(),
                    "seconds", (System.nanoTime() - started) / 1_000_000_000L);
            verdict.assertClean();
            assertThat(created.get()).as(line).isEqualTo(ids);
            assertThat(duplicate.get()).isEqualTo(enqueues - ids);
            assertThat(wrongId.get()).isZero();
            assertThat(verdict.completions()).isEqualTo(ids);
            assertThat(q.inspector().stats().done()).isEqualTo(ids);
        } finally {
            pool.shutdownNow();
        }
    }
}
