package dev.delayq.dashboard;

import dev.delayq.DelayQ;
import dev.delayq.QueueStats;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;

/**
 * The queue gauges of {@code /metrics}, read from Redis when scraped: {@code delayq_jobs{queue, state}} (jobs per
 * state). Queues come and go, so the rows are replaced on every scrape (a {@link MultiGauge}) rather than registered
 * once.
 */
final class QueueMeters implements AutoCloseable {
    private final DelayQ dq;
    private final MultiGauge jobs;

    QueueMeters(DelayQ dq, MeterRegistry registry) {
        this.dq = dq;
        this.jobs = MultiGauge.builder("delayq.jobs")
                .description("Jobs per queue and state, read from Redis when scraped").register(registry);
    }

    /** Reads every queue's counts and replaces the rows. */
    synchronized void refresh() {
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        for (String name : dq.queues()) {
            QueueStats s = dq.queue(name).stats();
            rows.add(row(name, "scheduled", s.scheduled()));
            rows.add(row(name, "processing", s.processing()));
            rows.add(row(name, "done", s.done()));
            rows.add(row(name, "dead", s.dead()));
        }
        jobs.register(rows, true);
    }

    private static MultiGauge.Row<?> row(String queue, String state, long value) {
        return MultiGauge.Row.of(Tags.of("queue", queue, "state", state), value);
    }

    /** Removes the gauges from the registry (it may be the application's and outlive the dashboard). */
    @Override
    public synchronized void close() {
        jobs.register(List.of(), true);
    }
}
