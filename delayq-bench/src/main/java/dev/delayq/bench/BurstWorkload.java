package dev.delayq.bench;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * W1 burst: 20,000 jobs with ~100-byte payloads, all due at T0 = first enqueue + 3 s, drained by the
 * consumers (started before the enqueue). Reports enqueue and drain rates, lag, duplicates and missing jobs.
 */
class BurstWorkload implements Workload {
    static final int JOBS = 20_000;

    @Override
    public String name() {
        return "w1";
    }

    @Override
    public List<Metric> metrics() {
        return List.of(Metric.ENQUEUE_JOBS_PER_S, Metric.DRAIN_JOBS_PER_S, Metric.LAG_P50_MS, Metric.LAG_P99_MS,
                Metric.LAG_MAX_MS, Metric.DUPLICATES, Metric.MISSING, Metric.REDIS_CPU_US_PER_JOB);
    }

    @Override
    public Map<Metric, Double> run(BenchContext ctx) throws InterruptedException {
        Burst.Result r = Burst.run(ctx, "w1", "w1-", ctx.config().count(JOBS), "burst");
        Map<Metric, Double> m = new EnumMap<>(Metric.class);
        m.put(Metric.ENQUEUE_JOBS_PER_S, r.enqueueJobsPerSec());
        m.put(Metric.DRAIN_JOBS_PER_S, r.drainJobsPerSec());
        m.put(Metric.LAG_P50_MS, r.tally().lagMillis(50));
        m.put(Metric.LAG_P99_MS, r.tally().lagMillis(99));
        m.put(Metric.LAG_MAX_MS, r.tally().maxLagMillis());
        m.put(Metric.DUPLICATES, (double) r.tally().duplicates());
        m.put(Metric.MISSING, (double) r.tally().missing());
        m.put(Metric.REDIS_CPU_US_PER_JOB, r.redisCpuMicrosPerJob());
        return m;
    }
}
