package dev.delayq.bench;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * W6 large payloads: 10,000 jobs of 10 KB, all due at T0 = first enqueue + 3 s, drained by the consumers (started
 * before the enqueue), as W1 but with payloads a hundred times larger. Reports the rates in payload megabytes per
 * second (10^6 bytes) besides jobs per second, and Redis's CPU per job: every state change that copies the record
 * (claim, complete) shows its byte cost here.
 */
final class LargeBurstWorkload implements Workload {
    static final int JOBS = 10_000;
    private static final byte[] PAYLOAD = BenchContext.payload(BenchContext.LARGE);

    @Override
    public String name() {
        return "w6";
    }

    @Override
    public List<Metric> metrics() {
        return List.of(Metric.ENQUEUE_MB_PER_S, Metric.DRAIN_MB_PER_S, Metric.DRAIN_JOBS_PER_S, Metric.LAG_P99_MS,
                Metric.DUPLICATES, Metric.MISSING, Metric.REDIS_CPU_US_PER_JOB);
    }

    @Override
    public Map<Metric, Double> run(BenchContext ctx) throws InterruptedException {
        Burst.Result r = Burst.run(ctx, "w6", "w6-", ctx.config().count(JOBS), "large burst", PAYLOAD);
        double megabytes = PAYLOAD.length / 1e6;
        Map<Metric, Double> m = new EnumMap<>(Metric.class);
        m.put(Metric.ENQUEUE_MB_PER_S, r.enqueueJobsPerSec() * megabytes);
        m.put(Metric.DRAIN_MB_PER_S, r.drainJobsPerSec() * megabytes);
        m.put(Metric.DRAIN_JOBS_PER_S, r.drainJobsPerSec());
        m.put(Metric.LAG_P99_MS, r.tally().lagMillis(99));
        m.put(Metric.DUPLICATES, (double) r.tally().duplicates());
        m.put(Metric.MISSING, (double) r.tally().missing());
        m.put(Metric.REDIS_CPU_US_PER_JOB, r.redisCpuMicrosPerJob());
        return m;
    }
}
