package dev.delayq.bench;

import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * limit: what Redis allows on this machine, measured from the same client in the same run, so that every
 * other figure can be read as a fraction of it. (1) The rate of a trivial {@code EVALSHA} ({@code return 1})
 * with 1,000 calls in flight for about 3 s; (2) the jobs per second of a minimal Lua claim of 100 due members
 * per call (ZRANGEBYSCORE ... LIMIT 0 100, ZREM of those) from a prefilled sorted set, pipelined the same
 * way. Both run on the benchmark's own connection; no delayq code is involved.
 */
final class LimitWorkload implements Workload {
    private static final Duration WINDOW = Duration.ofSeconds(3);
    private static final Duration MIN_WINDOW = Duration.ofMillis(500);
    private static final int IN_FLIGHT = 1_000;
    private static final int CLAIM = 100;
    /** Members in the claimed set: enough for the window on a fast machine, else the run ends early. */
    static final int PREFILL = 2_000_000;
    private static final int FILL_CHUNK = 10_000;

    @Override
    public String name() {
        return "limit";
    }

    @Override
    public List<Metric> metrics() {
        return List.of(Metric.LIMIT_EVALSHA_PER_S, Metric.LIMIT_JOBS_PER_S);
    }

    @Override
    public Map<Metric, Double> run(BenchContext ctx) throws InterruptedException {
        BenchConfig config = ctx.config();
        RedisProbe probe = ctx.probe();
        Progress progress = ctx.progress();
        Duration window = config.span(WINDOW, MIN_WINDOW);
        String noop = probe.loadScript("noop.lua");
        String claim = probe.loadScript("claim_minimal.lua");
        String fill = probe.loadScript("fill.lua");
        String[] none = new String[0];

        Pipelined.Rate evals = Pipelined.run(window, IN_FLIGHT,
                () -> probe.<Long>evalsha(noop, ScriptOutputType.INTEGER, none).thenApply(r -> 1),
                config.timeout(), () -> progress.show("limit: EVALSHA return 1", false));

        String key = ctx.target().key("limit-due");
        String[] keys = {key};
        int members = config.count(PREFILL);
        for (int from = 1; from <= members; from += FILL_CHUNK) {
            progress.show("limit: filling " + (from - 1) + "/" + members, false);
            int n = Math.min(FILL_CHUNK, members - from + 1);
            probe.<Long>evalshaSync(fill, ScriptOutputType.INTEGER, keys, String.valueOf(from), String.valueOf(n));
        }
        // Member i has score i (ms): every member is long due at any real "now".
        String now = String.valueOf(ctx.clock().nowMillis());
        Pipelined.Rate claims = Pipelined.run(window, IN_FLIGHT,
                () -> probe.<List<Object>>evalsha(claim, ScriptOutputType.MULTI, keys, now, String.valueOf(CLAIM))
                        .thenApply(List::size),
                config.timeout(), () -> progress.show("limit: minimal claim", false));
        probe.deleteMatching(key);

        Map<Metric, Double> m = new EnumMap<>(Metric.class);
        m.put(Metric.LIMIT_EVALSHA_PER_S, evals.perSecond());
        m.put(Metric.LIMIT_JOBS_PER_S, claims.perSecond());
        return m;
    }
}
