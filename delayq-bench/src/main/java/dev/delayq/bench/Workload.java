package dev.delayq.bench;

import java.util.List;
import java.util.Map;

/** One benchmark workload, as defined in docs/WORKLOADS.md. */
interface Workload {
    /** Its name on the command line and in the report, e.g. {@code w1}. */
    String name();

    /** The metrics it reports, in table order. */
    List<Metric> metrics();

    /** The table label of {@code metric} for this workload (the scale can change what it says). */
    default String label(Metric metric, BenchConfig config) {
        return metric.label();
    }

    /**
     * Runs one repetition on an empty keyspace and returns a value for every metric it reports ({@code NaN}
     * when it could not be measured in this repetition).
     */
    Map<Metric, Double> run(BenchContext ctx) throws InterruptedException;
}
