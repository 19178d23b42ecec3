package dev.delayq.bench;

import java.time.Duration;

/**
 * How the benchmark runs: the consumers' settings, and a scale applied to every workload's job counts and
 * durations (1 = the definitions in docs/WORKLOADS.md; smaller for a smoke run).
 *
 * @param consumers     workers started in this JVM for the workloads that consume
 * @param concurrency   handlers running at once per worker
 * @param batch         most jobs leased per claim
 * @param lookahead     the workers' lookahead
 * @param scale         factor on job counts and durations
 * @param timeout       Redis command timeout of every client
 * @param allowEviction accept a server whose memory policy evicts keys (only with --redis)
 * @param partitions    partitions of the burst queue on a cluster (1 elsewhere)
 * @param doneRetention how long the workers keep a completed job (the client's {@code doneRetention}; zero deletes it
 *                      when it completes)
 * @param flow          give the queues of W1, W2, W5 and W6 flow control that never binds (a rate limit of
 *                      {@link #FLOW_RATE} jobs per second, a concurrency limit of {@link #FLOW_CONCURRENCY} leases) and
 *                      their event stream: what the bookkeeping of limits and events costs
 * @param trace         every client traces with OpenTelemetry ({@link BenchTracing}): what tracing costs
 */
record BenchConfig(int consumers, int concurrency, int batch, Duration lookahead, double scale, Duration timeout,
                   boolean allowEviction, int partitions, Duration doneRetention, boolean flow, boolean trace) {
    /** --flow's rate limit: far above any drain rate, so it is checked and logged by every claim but never binds. */
    static final int FLOW_RATE = 1_000_000;
    /** --flow's concurrency limit: above the leases the consumers can hold (at most 64 consumers x 10,000 handlers). */
    static final int FLOW_CONCURRENCY = 1_000_000;

    /** Settings without tracing. */
    BenchConfig(int consumers, int concurrency, int batch, Duration lookahead, double scale, Duration timeout,
                boolean allowEviction, int partitions, Duration doneRetention, boolean flow) {
        this(consumers, concurrency, batch, lookahead, scale, timeout, allowEviction, partitions, doneRetention, flow, false);
    }

    /** The same settings with the queue split into {@code n} partitions. */
    BenchConfig withPartitions(int n) {
        return new BenchConfig(consumers, concurrency, batch, lookahead, scale, timeout, allowEviction, n, doneRetention, flow,
                trace);
    }
    /** {@code full} jobs scaled, at least one. */
    int count(int full) {
        return (int) Math.max(1, Math.round(full * scale));
    }

    /**
     * {@code full} scaled, but never under {@code floor}: a smoke run still needs time to enqueue before the
     * jobs fall due and to see a few claim cycles.
     */
    Duration span(Duration full, Duration floor) {
        Duration scaled = Duration.ofNanos(Math.round(full.toNanos() * scale));
        return scaled.compareTo(floor) < 0 ? floor : scaled;
    }

    /** Whether the workloads run at their defined size. */
    boolean fullSize() {
        return scale == 1.0;
    }
}
