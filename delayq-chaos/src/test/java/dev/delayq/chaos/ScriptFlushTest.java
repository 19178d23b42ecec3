package dev.delayq.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.delayq.Ack;
import dev.delayq.ClaimBatch;
import dev.delayq.ClaimOptions;
import dev.delayq.ClaimedJob;
import dev.delayq.DelayQ;
import dev.delayq.DelayQException;
import dev.delayq.Job;
import dev.delayq.JobListener.Outcome;
import dev.delayq.JobState;
import dev.delayq.JobQueue;
import dev.delayq.QueueStats;
import dev.delayq.Worker;
import dev.delayq.WorkerMetrics;
import dev.delayq.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Scenario 4 of the fault suite: {@code SCRIPT FLUSH} every 500 ms, and one Redis restart (which empties the
 * script cache too), while jobs are enqueued and claimed. Scripts run by EVALSHA; NOSCRIPT must be handled
 * inside the client (re-run by EVAL) and never reach a caller. Callers here are a producer, two threads using
 * the primitives directly (claim, get, complete, stats: every error they see is the API's) and one worker.
 */
class ScriptFlushTest {
    private static final String QUEUE = "flush";

    @Test
    void scriptFlushesAndARestartNeverSurfaceNoscript() throws Exception {
        long testStart = System.nanoTime();
        int jobs = Chaos.size(1_500, 5_000);
        Duration flushEvery = Duration.ofMillis(500);
        Duration faultPhase = Chaos.time(Duration.ofSeconds(6), Duration.ofSeconds(20));
        int maxFlushes = (int) (faultPhase.toMillis() / flushEvery.toMillis());

        try (RedisServer server = RedisServer.builder().config("appendonly", "yes").config("appendfsync", "always").start();
             DelayQ dq = DelayQ.builder().redis(server.uri()).timeout(Duration.ofSeconds(3)).retryPolicy(Rig.FAST).build()) {
            JobQueue q = dq.queue(QUEUE);
            Checker checker = new Checker("4-script-flush");
            AtomicLong errors = new AtomicLong();
            AtomicLong noscript = new AtomicLong();
            AtomicLong workerRedisErrors = new AtomicLong();
            ConcurrentLinkedQueue<String> noscriptExamples = new ConcurrentLinkedQueue<>();
            AtomicBoolean stop = new AtomicBoolean();
            ExecutorService threads = Executors.newFixedThreadPool(3);
            Worker worker = Worker.builder(q, checker.timed(job -> { }))
                    .name("flush-w0").concurrency(8)
                    .batchSize(10) // many small claims: many script calls meet a flushed cache
                    .leaseDuration(Duration.ofSeconds(2)).retryPolicy(Rig.FAST).maxIdleSleep(Duration.ofSeconds(1))
                    .listener(checker.listener())
                    .metrics(new WorkerMetrics() {
                        @Override
                        public void redisError(String queue, String operation) {
                            workerRedisErrors.incrementAndGet();
                        }
                    })
                    .build();
            try {
                worker.start();
                long started = System.nanoTime();
                List<Future<?>> running = new ArrayList<>();
                // Producer: paced over the first half of the fault phase, each job due within a second.
                running.add(threads.submit(() -> {
                    long deadline = started + faultPhase.toNanos() + Duration.ofSeconds(60).toNanos();
                    for (int n = 0; n < jobs; n++) {
                        LockSupport.parkNanos(started + faultPhase.toNanos() / 2 * n / jobs - System.nanoTime());
                        Job job = Job.builder().id("flush-" + n).payload("n=" + n)
                                .delay(Duration.ofMillis((n * 7919L) % 1000)).build();
                        Rig.enqueueUntilAcked(q, job, checker, e -> count(e, errors, noscript, noscriptExamples), deadline);
                    }
                    return null;
                }));
                for (int c = 0; c < 2; c++) {
                    String name = "flush-caller" + c;
                    running.add(threads.submit(() -> {
                        callerLoop(q, checker, name, stop, errors, noscript, noscriptExamples);
                        return null;
                    }));
                }

                int flushes = 0;
                int restarts = 0;
                // A count of faults, not a time: on a busy machine the restart and the flushes take longer, and every
                // one of them is still injected (the loop used to stop at a deadline and then miss its own count).
                while (flushes < maxFlushes) {
                    Thread.sleep(flushEvery.toMillis()); // pacing of the fault
                    if (flushes == maxFlushes / 2 && restarts == 0) {
                        server.kill();
                        server.restart();
                        restarts++;
                    }
                    server.call("SCRIPT", "FLUSH");
                    flushes++;
                }
                running.get(0).get(120, TimeUnit.SECONDS);
                assertThat(checker.ackedCount()).isEqualTo(jobs);

                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                        .until(() -> {
                            QueueStats s = q.inspector().stats();
                            return s.done() == jobs && s.scheduled() == 0 && s.processing() == 0;
                        });
                stop.set(true);
                for (Future<?> f : running) {
                    f.get(30, TimeUnit.SECONDS);
                }
                worker.close();

                QueueStats stats = q.inspector().stats();
                Checker.Verdict verdict = checker.check(q, JobState.DONE);
                Map<String, Object> extra = new LinkedHashMap<>();
                extra.put("jobs", jobs);
                extra.put("claims", stats.total("claimed"));
                extra.put("faults", flushes + restarts);
                extra.put("flushes", flushes);
                extra.put("restarts", restarts);
                extra.put("errors", errors.get());
                extra.put("worker_redis_errors", workerRedisErrors.get());
                extra.put("noscript", noscript.get());
                extra.put("wall_s", String.format("%.1f", (System.nanoTime() - testStart) / 1e9));
                verdict.line(extra);
                verdict.assertClean();
                assertThat(noscript.get()).as("NOSCRIPT errors seen by callers, e.g. %s", noscriptExamples).isZero();
                assertThat(flushes).isEqualTo(maxFlushes);
                assertThat(restarts).isEqualTo(1);
                assertThat(stats.total("claimed")).isGreaterThanOrEqualTo(jobs);
                assertThat(verdict.completions()).isEqualTo(jobs);
            } finally {
                stop.set(true);
                worker.close();
                threads.shutdownNow();
            }
        }
    }

    /**
     * A custom runtime on the primitives: claim a few jobs, read each back, complete it (retrying the same
     * lease after an error: a retried completion reports what was applied). Every error is counted; a NOSCRIPT
     * one is a defect.
     */
    private static void callerLoop(JobQueue q, Checker checker, String name, AtomicBoolean stop, AtomicLong errors,
                                   AtomicLong noscript, ConcurrentLinkedQueue<String> examples) {
        ClaimOptions options = ClaimOptions.of(5, Duration.ofSeconds(2)).withRetryPolicy(Rig.FAST);
        while (!stop.get()) {
            ClaimBatch batch;
            try {
                batch = q.leases().claim(options);
                q.inspector().stats();
            } catch (DelayQException e) {
                count(e, errors, noscript, examples);
                LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
                continue;
            }
            if (batch.jobs().isEmpty()) {
                // A custom runtime's idle pacing, with jitter so the two callers do not claim in step.
                LockSupport.parkNanos(Duration.ofMillis(10 + ThreadLocalRandom.current().nextInt(20)).toNanos());
                continue;
            }
            for (ClaimedJob job : batch.jobs()) {
                long start = System.currentTimeMillis();
                Outcome outcome = null;
                while (outcome == null && !stop.get()) {
                    try {
                        q.get(job.id());
                        Ack ack = q.leases().complete(job.lease());
                        outcome = ack.applied() ? Outcome.COMPLETED : Outcome.REFUSED;
                    } catch (DelayQException e) {
                        count(e, errors, noscript, examples);
                        LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
                    }
                }
                if (outcome != null) {
                    checker.run(new Checker.Run(job.id(), job.token(), start, start, outcome));
                }
            }
        }
    }

    private static void count(DelayQException e, AtomicLong errors, AtomicLong noscript, ConcurrentLinkedQueue<String> examples) {
        errors.incrementAndGet();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (String.valueOf(t.getMessage()).contains("NOSCRIPT")) {
                noscript.incrementAndGet();
                if (examples.size() < 5) {
                    examples.add(e.toString());
                }
                return;
            }
        }
    }
}
