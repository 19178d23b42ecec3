package dev.delayq.bench;

import dev.delayq.DelayQ;
import dev.delayq.Job;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * W4 memory: 100,000 jobs with 100-byte payloads due in an hour; Redis's {@code used_memory} grows by how
 * much per job. Measured after one warm-up job in the same queue (so its keys and delayq's scripts exist),
 * with no consumers, and with the producer's connection closed at both readings so that its buffers do not
 * count.
 */
final class MemoryWorkload implements Workload {
    static final int JOBS = 100_000;
    private static final Duration CLIENT_GONE_WAIT = Duration.ofSeconds(5);

    @Override
    public String name() {
        return "w4";
    }

    @Override
    public List<Metric> metrics() {
        return List.of(Metric.BYTES_PER_JOB);
    }

    @Override
    public Map<Metric, Double> run(BenchContext ctx) throws InterruptedException {
        int n = ctx.config().count(JOBS);
        RedisProbe probe = ctx.probe();
        long clients = probe.connectedClients();
        try (DelayQ producer = ctx.client("producer")) {
            producer.queue("w4").enqueue(Job.builder().id("warmup").payload(BenchContext.PAYLOAD).delay(BenchContext.FAR).build());
        }
        awaitClients(probe, clients);
        long before = probe.usedMemory();

        List<Job> jobs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            jobs.add(Job.builder().id("w4-" + i).payload(BenchContext.PAYLOAD).delay(BenchContext.FAR).build());
        }
        ctx.progress().show("memory: enqueueing " + n + " jobs");
        try (DelayQ producer = ctx.client("producer")) {
            Burst.checkCreated(Burst.join(producer.queue("w4").enqueueAllAsync(jobs)), n, "memory");
        }
        awaitClients(probe, clients);
        long after = probe.usedMemory();
        Map<Metric, Double> m = new EnumMap<>(Metric.class);
        m.put(Metric.BYTES_PER_JOB, (after - before) / (double) n);
        return m;
    }

    /**
     * Waits until Redis has seen the producer disconnect. On a shared server other clients come and go, so
     * after a few seconds it measures anyway.
     */
    private static void awaitClients(RedisProbe probe, long clients) throws InterruptedException {
        // Redis announces nothing when it drops a closed connection: poll the count, with a deadline.
        long deadline = System.nanoTime() + CLIENT_GONE_WAIT.toNanos();
        while (probe.connectedClients() > clients && System.nanoTime() - deadline < 0) {
            RedisClock.parkUntilNanos(System.nanoTime() + 10_000_000L);
        }
    }
}
