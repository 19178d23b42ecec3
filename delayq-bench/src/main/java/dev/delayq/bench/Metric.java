package dev.delayq.bench;

import java.util.Locale;

/**
 * What a workload measures: its JSON key (part of the command's contract), its label in the table, how it is
 * printed and how repetitions combine. Rates and latencies report the median with min and max; correctness
 * counts report the total over all repetitions, so that one bad repetition cannot hide behind a median.
 */
enum Metric {
    ENQUEUE_JOBS_PER_S("enqueue_jobs_per_s", "enqueue jobs/s", Format.INTEGER, false),
    ENQUEUE_MB_PER_S("enqueue_mb_per_s", "enqueue MB/s (payload bytes)", Format.DECIMAL, false),
    DRAIN_MB_PER_S("drain_mb_per_s", "drain MB/s (payload bytes)", Format.DECIMAL, false),
    DRAIN_JOBS_PER_S("drain_jobs_per_s", "drain jobs/s", Format.INTEGER, false),
    DRAIN_JOBS_PER_S_10K("drain_jobs_per_s_10k", "drain jobs/s, 10k scheduled", Format.INTEGER, false),
    SCALE_RATIO("scale_ratio", "per-rep ratio 1M / 10k", Format.RATIO, false),
    LAG_P50_MS("lag_p50_ms", "lag p50 ms", Format.MILLIS, false),
    LAG_P99_MS("lag_p99_ms", "lag p99 ms", Format.MILLIS, false),
    LAG_MAX_MS("lag_max_ms", "lag max ms", Format.MILLIS, false),
    DUPLICATES("duplicates", "duplicates", Format.INTEGER, true),
    MISSING("missing", "missing", Format.INTEGER, true),
    REDIS_CMDS_PER_S("redis_cmds_per_s", "Redis commands/s", Format.DECIMAL, false),
    REDIS_CPU_US_PER_JOB("redis_cpu_us_per_job", "Redis CPU us/job (claim+complete)", Format.DECIMAL, false),
    BYTES_PER_JOB("bytes_per_job", "Redis bytes/job", Format.INTEGER, false),
    LIMIT_EVALSHA_PER_S("limit_evalsha_per_s", "EVALSHA 'return 1'/s", Format.INTEGER, false),
    LIMIT_JOBS_PER_S("limit_jobs_per_s", "minimal claim jobs/s", Format.INTEGER, false);

    private final String key;
    private final String label;
    private final Format format;
    private final boolean summed;

    Metric(String key, String label, Format format, boolean summed) {
        this.key = key;
        this.label = label;
        this.format = format;
        this.summed = summed;
    }

    /** The JSON key. */
    String key() {
        return key;
    }

    /** The default table label (a workload may give a more specific one). */
    String label() {
        return label;
    }

    /** Whether repetitions are added up (correctness counts) rather than summarised by their median. */
    boolean summed() {
        return summed;
    }

    /** The value as printed in the table ({@code n/a} when it could not be measured). */
    String format(double value) {
        if (Double.isNaN(value)) {
            return "n/a";
        }
        return switch (format) {
            case INTEGER -> String.format(Locale.ROOT, "%,.0f", value);
            case DECIMAL -> String.format(Locale.ROOT, "%,.1f", value);
            case MILLIS -> String.format(Locale.ROOT, "%.2f", value);
            case RATIO -> String.format(Locale.ROOT, "%.3f", value);
        };
    }

    /** The value as written in JSON: whole numbers for counts and integer formats, else three decimals. */
    Number json(double value) {
        if (format == Format.INTEGER) {
            return Math.round(value);
        }
        return Math.round(value * 1000.0) / 1000.0;
    }

    private enum Format { INTEGER, DECIMAL, MILLIS, RATIO }
}
