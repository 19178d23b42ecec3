package dev.delayq.bench;

import dev.delayq.cli.Json;
import dev.delayq.internal.present.DurationText;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Collects the repetitions of every workload and prints them: one table of medians with min – max per metric
 * (totals for correctness counts), or with {@code --json} one object per workload.
 */
final class Report {
    private final Environment env;
    private final BenchConfig config;
    private final int reps;
    private final Map<Workload, List<Map<Metric, Double>>> results = new LinkedHashMap<>();
    private final List<String> notes = new ArrayList<>();
    private final Map<Workload, BenchConfig> configs = new LinkedHashMap<>();
    private final Map<Workload, List<Map<Metric, Double>>> warmups = new LinkedHashMap<>();

    /**
     * Where and when the run happened.
     *
     * @param startedAt ISO-8601 UTC minute the run started
     * @param java      Java version
     * @param redis     Redis version
     * @param server    {@code private} or the server's {@code host:port}
     * @param cpu       CPU model (/proc/cpuinfo "model name")
     * @param cores     processors available to this JVM
     */
    record Environment(String startedAt, String java, String redis, String server, String cpu, int cores) {
    }

    /** The summary of one metric over the repetitions. */
    record Summary(double value, double min, double max) {
    }

    Report(Environment env, BenchConfig config, int reps) {
        this.env = env;
        this.config = config;
        this.reps = reps;
    }

    /** A line printed under the table (and ignored by --json). */
    void note(String line) {
        notes.add(line);
    }

    /** Adds one repetition of {@code workload}, run with {@code config} (when it differs from the report's). */
    void add(Workload workload, Map<Metric, Double> values, BenchConfig config) {
        configs.put(workload, config);
        add(workload, values);
    }

    /**
     * Records an unmeasured warm-up repetition of {@code workload}: its timings are dropped, but a job it started twice
     * or lost fails the run as a measured one would.
     */
    void warmedUp(Workload workload, Map<Metric, Double> values) {
        warmups.computeIfAbsent(workload, w -> new ArrayList<>()).add(values);
    }

    /** Adds one repetition of {@code workload}. */
    void add(Workload workload, Map<Metric, Double> values) {
        results.computeIfAbsent(workload, w -> new ArrayList<>()).add(values);
    }

    /**
     * The summary of {@code metric} for {@code workload}: the total for correctness counts, else the median
     * (with min and max) of the repetitions that measured it; {@code NaN} when none did.
     */
    Summary summary(Workload workload, Metric metric) {
        return summary(results.getOrDefault(workload, List.of()), metric);
    }

    private static Summary summary(List<Map<Metric, Double>> reps, Metric metric) {
        List<Double> values = new ArrayList<>();
        for (Map<Metric, Double> rep : reps) {
            Double v = rep.get(metric);
            if (v != null && !v.isNaN()) {
                values.add(v);
            }
        }
        if (values.isEmpty()) {
            return new Summary(Double.NaN, Double.NaN, Double.NaN);
        }
        values.sort(null);
        double min = values.get(0);
        double max = values.get(values.size() - 1);
        if (metric.summed()) {
            double sum = 0;
            for (double v : values) {
                sum += v;
            }
            return new Summary(sum, min, max);
        }
        int n = values.size();
        double median = n % 2 == 1 ? values.get(n / 2) : (values.get(n / 2 - 1) + values.get(n / 2)) / 2;
        return new Summary(median, min, max);
    }

    /**
     * One line per workload that started a job twice or lost one, in its measured or its warm-up repetitions; empty
     * when the run is correct.
     */
    List<String> failures() {
        List<String> out = new ArrayList<>();
        results.forEach((w, reps) -> failure(w.name(), reps, out));
        warmups.forEach((w, reps) -> failure(w.name() + " warm-up", reps, out));
        return out;
    }

    private static void failure(String label, List<Map<Metric, Double>> reps, List<String> out) {
        double dup = summary(reps, Metric.DUPLICATES).value(); // NaN (no failure) for a workload that does not count them
        double missing = summary(reps, Metric.MISSING).value();
        if (dup > 0 || missing > 0) {
            out.add(String.format(Locale.ROOT, "%s: %.0f job(s) started more than once, %.0f never started", label,
                    dup, missing));
        }
    }

    /** Prints the table. */
    void printTable(PrintWriter out) {
        out.printf("delayq bench — %s, Java %s, Redis %s (%s), %s x%d, reps %d%n", env.startedAt(), env.java(),
                env.redis(), env.server().equals("private") ? "private server" : "at " + env.server(), env.cpu(),
                env.cores(), reps);
        out.printf("consumers %d x concurrency %d, batch %d, lookahead %s, done retention %s%s%n", config.consumers(),
                config.concurrency(), config.batch(), lookahead(), DurationText.format(config.doneRetention()),
                config.fullSize() ? "" : ", scale " + scale() + " (smaller than defined)");
        if (!warmups.isEmpty()) {
            List<String> names = new ArrayList<>();
            for (Map.Entry<Workload, List<Map<Metric, Double>>> e : warmups.entrySet()) {
                names.add(e.getKey().name() + " " + e.getValue().size());
            }
            out.println("unmeasured warm-up repetitions first: " + String.join(", ", names));
        }
        if (config.flow()) {
            out.println("--flow: w1, w2, w5 and w6 ran with a rate limit, a concurrency limit (neither binds) and events on");
        }
        if (config.trace()) {
            out.println("--trace: every enqueue and attempt traced with OpenTelemetry (every span sampled, exported to nowhere)");
        }
        if (!env.server().equals("private")) {
            out.println("shared server: commands/s and memory include whatever other clients did meanwhile");
        }
        out.printf("%-11s %-34s %14s   %s%n", "workload", "metric", "median", "min – max");
        for (Map.Entry<Workload, List<Map<Metric, Double>>> e : results.entrySet()) {
            Workload w = e.getKey();
            for (Metric m : w.metrics()) {
                Summary s = summary(w, m);
                String range = m.summed() ? "total of " + e.getValue().size() + " rep(s)"
                        : m.format(s.min()) + " – " + m.format(s.max());
                out.printf("%-11s %-34s %14s   %s%n", w.name(), w.label(m, config), m.format(s.value()), range);
            }
        }
        notes.forEach(out::println);
        if (find("w5") != null) {
            out.println("w5 per-rep ratio: each repetition's drain rate beside the larger queue divided by its rate beside "
                    + "the smaller one; the median of those ratios (not the ratio of the two medians above)");
        }
        Workload limit = find("limit");
        if (limit != null) {
            double ceiling = summary(limit, Metric.LIMIT_JOBS_PER_S).value();
            for (String name : List.of("w1", "w5")) {
                Workload w = find(name);
                double drain = w != null ? summary(w, Metric.DRAIN_JOBS_PER_S).value() : Double.NaN;
                if (!Double.isNaN(drain) && ceiling > 0) {
                    out.printf(Locale.ROOT, "%s drain is %.1f%% of the minimal claim's %s jobs/s (limit)%n", name,
                            100 * drain / ceiling, Metric.LIMIT_JOBS_PER_S.format(ceiling));
                }
            }
        }
    }

    /** Prints one JSON object per workload. */
    void printJson(PrintWriter out) {
        for (Map.Entry<Workload, List<Map<Metric, Double>>> e : results.entrySet()) {
            Workload w = e.getKey();
            Map<String, Object> line = new LinkedHashMap<>();
            line.put("workload", w.name());
            Map<String, Object> ranges = new LinkedHashMap<>();
            for (Metric m : w.metrics()) {
                Summary s = summary(w, m);
                line.put(m.key(), Double.isNaN(s.value()) ? null : m.json(s.value()));
                if (!m.summed()) {
                    ranges.put(m.key() + "_min", Double.isNaN(s.min()) ? null : m.json(s.min()));
                    ranges.put(m.key() + "_max", Double.isNaN(s.max()) ? null : m.json(s.max()));
                    // Every repetition's value in the order they ran (null where one did not measure it): a run's
                    // trend (a JIT still compiling, a noisy neighbour) shows here, and hides in the median.
                    List<Number> each = new ArrayList<>();
                    for (Map<Metric, Double> rep : e.getValue()) {
                        Double v = rep.get(m);
                        each.add(v == null || v.isNaN() ? null : m.json(v));
                    }
                    ranges.put(m.key() + "_reps", each);
                }
            }
            line.put("reps", e.getValue().size());
            line.put("warmup_reps", warmups.getOrDefault(w, List.of()).size());
            line.putAll(ranges);
            line.put("started_at", env.startedAt());
            line.put("java", env.java());
            line.put("redis", env.redis());
            line.put("cpu", env.cpu());
            line.put("cores", env.cores());
            BenchConfig c = configs.getOrDefault(w, config);
            line.put("server", w.name().endsWith("-cluster") ? "private cluster" : env.server());
            line.put("consumers", c.consumers());
            line.put("concurrency", c.concurrency());
            line.put("batch", c.batch());
            line.put("lookahead_ms", c.lookahead().toMillis());
            line.put("done_retention_ms", c.doneRetention().toMillis());
            line.put("scale", c.scale());
            line.put("flow", c.flow());
            line.put("trace", c.trace());
            line.put("partitions", c.partitions());
            out.println(Json.line(line));
        }
    }

    private Workload find(String name) {
        for (Workload w : results.keySet()) {
            if (w.name().equals(name)) {
                return w;
            }
        }
        return null;
    }

    private String lookahead() {
        long ms = config.lookahead().toMillis();
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }

    private String scale() {
        return String.format(Locale.ROOT, "%s", config.scale());
    }

    /** A job count as the workloads name it: 1M, 10k, 200. */
    static String count(int n) {
        if (n >= 1_000_000 && n % 1_000_000 == 0) {
            return n / 1_000_000 + "M";
        }
        if (n >= 1_000 && n % 1_000 == 0) {
            return n / 1_000 + "k";
        }
        return String.valueOf(n);
    }
}
