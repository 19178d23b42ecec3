package dev.delayq.chaos;

import dev.delayq.JobQueue;
import dev.delayq.Worker;
import dev.delayq.WorkerMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The in-process workers of a fault scenario: each a real {@link Worker} whose handler is timed by the
 * {@link Checker} and whose listener reports every outcome to it. Retries start at 50 ms and a job may be
 * tried 1,000 times, so fault-induced failures never kill a job. Counts the Redis errors the workers met.
 */
final class ChaosWorkers implements AutoCloseable {
    private final List<Worker> workers = new ArrayList<>();
    private final Map<String, LongAdder> redisErrors = new ConcurrentHashMap<>();

    /**
     * Starts {@code count} workers on {@code queues} (one queue object per worker, each possibly on a client of
     * its own).
     *
     * @param work the handler's longest run time (each run takes a seeded random part of it)
     */
    ChaosWorkers(List<JobQueue> queues, Checker checker, Duration lease, Duration work, long seed) {
        WorkerMetrics metrics = new WorkerMetrics() {
            @Override
            public void redisError(String queue, String operation) {
                redisErrors.computeIfAbsent(operation, k -> new LongAdder()).increment();
            }
        };
        int i = 0;
        for (JobQueue q : queues) {
            Random random = new Random(seed + i);
            int maxMillis = (int) work.toMillis();
            workers.add(Worker.builder(q, checker.timed(job -> {
                        int ms;
                        synchronized (random) {
                            ms = maxMillis == 0 ? 0 : random.nextInt(maxMillis + 1);
                        }
                        if (ms > 0) {
                            Thread.sleep(ms); // the job's work
                        }
                    }))
                    .name("chaos-worker-" + i++)
                    .concurrency(8)
                    .batchSize(50)
                    .leaseDuration(lease)
                    .retryPolicy(Rig.FAST) // short backoff, attempts enough that no fault kills a job
                    .listener(checker.listener())
                    .metrics(metrics)
                    .shutdownGrace(Duration.ofSeconds(5))
                    .build()
                    .start());
        }
    }

    /** Redis errors the workers met (and retried), by operation. */
    Map<String, Long> redisErrors() {
        Map<String, Long> out = new TreeMap<>();
        redisErrors.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    /** Redis errors in total. */
    long redisErrorCount() {
        return redisErrors().values().stream().mapToLong(Long::longValue).sum();
    }

    @Override
    public void close() {
        workers.forEach(Worker::close);
    }
}
