package dev.delayq.bench;

import dev.delayq.DelayQ;
import dev.delayq.Job;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * W2 trickle: 2,000 jobs due uniformly over 10 s, starting 2 s after the enqueue, run by the consumers.
 * Reports the lag, and the Redis commands per second (the change of {@code total_commands_processed}, which
 * counts the commands inside scripts) over the 10 s in which the jobs fall due.
 */
final class TrickleWorkload implements Workload {
    static final int JOBS = 2_000;
    private static final Duration WINDOW = Duration.ofSeconds(10);
    private static final Duration MIN_WINDOW = Duration.ofSeconds(1);
    private static final Duration START = Duration.ofSeconds(2);
    private static final Duration MIN_START = Duration.ofMillis(500);
    private static final long PREPARE_MILLIS = 200;
    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(30);

    @Override
    public String name() {
        return "w2";
    }

    @Override
    public List<Metric> metrics() {
        return List.of(Metric.LAG_P50_MS, Metric.LAG_P99_MS, Metric.LAG_MAX_MS, Metric.REDIS_CMDS_PER_S,
                Metric.DUPLICATES, Metric.MISSING);
    }

    @Override
    public Map<Metric, Double> run(BenchContext ctx) throws InterruptedException {
        BenchConfig config = ctx.config();
        int n = config.count(JOBS);
        long window = config.span(WINDOW, MIN_WINDOW).toMillis();
        long start = config.span(START, MIN_START).toMillis();
        Progress progress = ctx.progress();
        try (DelayQ producer = ctx.client("producer")) {
            Warmup.scripts(producer, "w2", config.flow());
            RedisClock clock = ctx.clock();
            Recorder recorder = new Recorder(n, clock);
            try (Consumers consumers = Consumers.start(ctx, "w2", recorder)) {
                long first = clock.nowMillis() + PREPARE_MILLIS + start;
                List<Job> jobs = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    Instant due = Instant.ofEpochMilli(first + i * window / n);
                    jobs.add(Job.builder().id("w2-" + i).payload(BenchContext.PAYLOAD).runAt(due).build());
                }
                progress.show("trickle: enqueueing " + n + " jobs");
                clock.parkUntil(first - start);
                Burst.checkCreated(Burst.join(producer.queue("w2").enqueueAllAsync(jobs)), n, "trickle");

                progress.show("trickle: waiting for the first due time");
                clock.parkUntil(first);
                long before = ctx.probe().commandsProcessed();
                long from = System.nanoTime();
                long end = clock.localNanosAt(first + window);
                while (System.nanoTime() - end < 0) {
                    progress.show("trickle: " + recorder.distinct() + "/" + n + " started", false);
                    RedisClock.parkUntilNanos(Math.min(end, System.nanoTime() + 100_000_000L));
                }
                long after = ctx.probe().commandsProcessed();
                long to = System.nanoTime();
                // The INFO that read the first count is itself counted in the second.
                double commandsPerSec = (after - before - 1) / Burst.seconds(to - from);

                long deadline = end + DRAIN_TIMEOUT.toNanos();
                boolean all = recorder.awaitDistinct(n, deadline, d -> progress.show("trickle: " + d + "/" + n + " started", false));
                if (all) {
                    progress.show("trickle: checking for duplicates");
                    RedisClock.parkUntilNanos(System.nanoTime() + config.span(Burst.GRACE, Duration.ofMillis(300)).toNanos());
                }
                Recorder.Tally tally = recorder.tally();
                Map<Metric, Double> m = new EnumMap<>(Metric.class);
                m.put(Metric.LAG_P50_MS, tally.lagMillis(50));
                m.put(Metric.LAG_P99_MS, tally.lagMillis(99));
                m.put(Metric.LAG_MAX_MS, tally.maxLagMillis());
                m.put(Metric.REDIS_CMDS_PER_S, commandsPerSec);
                m.put(Metric.DUPLICATES, (double) tally.duplicates());
                m.put(Metric.MISSING, (double) tally.missing());
                return m;
            }
        }
    }
}
