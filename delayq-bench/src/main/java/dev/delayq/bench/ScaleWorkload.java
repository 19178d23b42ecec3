package dev.delayq.bench;

import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * W5 scale: does claim + complete slow down when the queue also holds many jobs scheduled for later? A burst
 * of 20,000 due jobs is drained by the consumers once with 10,000 jobs due in an hour in the same queue, and
 * once (on an emptied keyspace) with 1,000,000; reports both drain rates and their ratio (1M / 10k).
 */
final class ScaleWorkload implements Workload {
    static final int SMALL = 10_000;
    static final int LARGE = 1_000_000;
    static final int BURST = 20_000;
    /** Background jobs per enqueue call: bounds the client's memory, not timed. */
    private static final int CHUNK = 50_000;

    @Override
    public String name() {
        return "w5";
    }

    @Override
    public List<Metric> metrics() {
        return List.of(Metric.DRAIN_JOBS_PER_S, Metric.DRAIN_JOBS_PER_S_10K, Metric.SCALE_RATIO, Metric.DUPLICATES,
                Metric.MISSING);
    }

    @Override
    public String label(Metric metric, BenchConfig config) {
        String large = Report.count(config.count(LARGE));
        String small = Report.count(config.count(SMALL));
        return switch (metric) {
            case DRAIN_JOBS_PER_S -> "drain jobs/s, " + large + " scheduled";
            case DRAIN_JOBS_PER_S_10K -> "drain jobs/s, " + small + " scheduled";
            case SCALE_RATIO -> "per-rep ratio " + large + " / " + small;
            default -> metric.label();
        };
    }

    @Override
    public Map<Metric, Double> run(BenchContext ctx) throws InterruptedException {
        BenchConfig config = ctx.config();
        Burst.Result small = phase(ctx, config.count(SMALL));
        ctx.target().reset();
        Burst.Result large = phase(ctx, config.count(LARGE));
        Map<Metric, Double> m = new EnumMap<>(Metric.class);
        m.put(Metric.DRAIN_JOBS_PER_S, large.drainJobsPerSec());
        m.put(Metric.DRAIN_JOBS_PER_S_10K, small.drainJobsPerSec());
        m.put(Metric.SCALE_RATIO, large.drainJobsPerSec() / small.drainJobsPerSec());
        m.put(Metric.DUPLICATES, (double) (small.tally().duplicates() + large.tally().duplicates()));
        m.put(Metric.MISSING, (double) (small.tally().missing() + large.tally().missing()));
        return m;
    }

    private static Burst.Result phase(BenchContext ctx, int background) throws InterruptedException {
        String what = Report.count(background) + " scheduled";
        try (DelayQ producer = ctx.client("background")) {
            JobQueue q = producer.queue("w5");
            for (int from = 0; from < background; from += CHUNK) {
                ctx.progress().show(what + ": enqueueing background " + from + "/" + background, false);
                int to = Math.min(background, from + CHUNK);
                List<Job> jobs = new ArrayList<>(to - from);
                for (int i = from; i < to; i++) {
                    jobs.add(Job.builder().id("bg-" + i).payload(BenchContext.PAYLOAD).delay(BenchContext.FAR).build());
                }
                Burst.checkCreated(Burst.join(q.enqueueAllAsync(jobs)), to - from, "background");
            }
        }
        return Burst.run(ctx, "w5", "burst-", ctx.config().count(BURST), what);
    }
}
