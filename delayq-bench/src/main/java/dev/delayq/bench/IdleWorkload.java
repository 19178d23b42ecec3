package dev.delayq.bench;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * W3 idle: the consumers on an empty queue; after a 2 s settle, the Redis commands per second they cause
 * over 10 s (what a fleet of idle workers costs Redis).
 */
final class IdleWorkload implements Workload {
    private static final Duration SETTLE = Duration.ofSeconds(2);
    private static final Duration MIN_SETTLE = Duration.ofMillis(500);
    private static final Duration WINDOW = Duration.ofSeconds(10);
    private static final Duration MIN_WINDOW = Duration.ofSeconds(1);

    @Override
    public String name() {
        return "w3";
    }

    @Override
    public List<Metric> metrics() {
        return List.of(Metric.REDIS_CMDS_PER_S);
    }

    @Override
    public Map<Metric, Double> run(BenchContext ctx) throws InterruptedException {
        BenchConfig config = ctx.config();
        Progress progress = ctx.progress();
        Recorder recorder = new Recorder(0, ctx.clock());
        try (Consumers consumers = Consumers.start(ctx, "w3", recorder)) {
            progress.show("idle: settling");
            RedisClock.parkUntilNanos(System.nanoTime() + config.span(SETTLE, MIN_SETTLE).toNanos());
            long before = ctx.probe().commandsProcessed();
            long from = System.nanoTime();
            long end = from + config.span(WINDOW, MIN_WINDOW).toNanos();
            while (System.nanoTime() - end < 0) {
                long left = Math.max(0, (end - System.nanoTime() + 999_999_999L) / 1_000_000_000L);
                progress.show("idle: counting commands, " + left + " s left", false);
                RedisClock.parkUntilNanos(Math.min(end, System.nanoTime() + 100_000_000L));
            }
            long after = ctx.probe().commandsProcessed();
            long to = System.nanoTime();
            Map<Metric, Double> m = new EnumMap<>(Metric.class);
            // The INFO that read the first count is itself counted in the second.
            m.put(Metric.REDIS_CMDS_PER_S, (after - before - 1) / Burst.seconds(to - from));
            return m;
        }
    }
}
