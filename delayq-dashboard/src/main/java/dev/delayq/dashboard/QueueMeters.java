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
 * state), {@code delayq_oldest_due_lag_seconds{queue}} (how long the oldest due job has waited),
 * {@code delayq_queue_paused{queue}} and {@code delayq_jobs_past_retention{queue}} (done and dead jobs kept past their
 * retention, waiting for the workers' purge: growing without end means the purge does not keep up; absent until a
 * worker has purged the queue), {@code delayq_scheduled_jobs{queue, state}} (the scheduled jobs by state: ready, due
 * now; delayed, due later; retrying, failed and waiting for a retry still to come) and {@code delayq_workers{queue}}
 * (live workers, by their heartbeats; 0 with ready jobs means nobody runs them). Queues come and go, so the rows are replaced on every scrape (a
 * {@link MultiGauge}) rather than registered once.
 */
final class QueueMeters implements AutoCloseable {
    private final DelayQ dq;
    private final MultiGauge jobs;
    private final MultiGauge lag;
    private final MultiGauge paused;
    private final MultiGauge pastRetention;
    private final MultiGauge scheduled;
    private final MultiGauge workers;

    QueueMeters(DelayQ dq, MeterRegistry registry) {
        this.dq = dq;
        this.jobs = MultiGauge.builder("delayq.jobs")
                .description("Jobs per queue and state, read from Redis when scraped").register(registry);
        this.lag = MultiGauge.builder("delayq.oldest.due.lag").baseUnit("seconds")
                .description("How long the oldest due job of the queue has been waiting (0 when none is due)")
                .register(registry);
        this.paused = MultiGauge.builder("delayq.queue.paused")
                .description("1 while the queue is paused (workers do not claim from it)").register(registry);
        this.pastRetention = MultiGauge.builder("delayq.jobs.past.retention")
                .description("Done and dead jobs kept past their retention, waiting for the workers' purge").register(registry);
        this.scheduled = MultiGauge.builder("delayq.scheduled.jobs")
                .description("Scheduled jobs per queue by state: ready (due now), delayed (due later), retrying (failed, "
                        + "waiting for a retry)").register(registry);
        this.workers = MultiGauge.builder("delayq.workers")
                .description("Live workers of the queue, by their heartbeats").register(registry);
    }

    /** Reads every queue's counts and replaces the rows. */
    synchronized void refresh() {
        List<MultiGauge.Row<?>> jobRows = new ArrayList<>();
        List<MultiGauge.Row<?>> lagRows = new ArrayList<>();
        List<MultiGauge.Row<?>> pausedRows = new ArrayList<>();
        List<MultiGauge.Row<?>> pastRows = new ArrayList<>();
        List<MultiGauge.Row<?>> scheduledRows = new ArrayList<>();
        List<MultiGauge.Row<?>> workerRows = new ArrayList<>();
        for (String name : dq.queues()) {
            dev.delayq.QueueInspector inspector = dq.inspector(name);
            QueueStats s = inspector.stats();
            if (s.ready() >= 0) {
                scheduledRows.add(row(name, "ready", s.ready()));
                scheduledRows.add(row(name, "delayed", s.delayed()));
                scheduledRows.add(row(name, "retrying", s.retrying()));
            }
            workerRows.add(MultiGauge.Row.of(Tags.of("queue", name), inspector.workers().size()));
            jobRows.add(row(name, "scheduled", s.scheduled()));
            jobRows.add(row(name, "processing", s.processing()));
            jobRows.add(row(name, "done", s.done()));
            jobRows.add(row(name, "dead", s.dead()));
            lagRows.add(MultiGauge.Row.of(Tags.of("queue", name), s.oldestDueLagMillis() / 1000.0));
            pausedRows.add(MultiGauge.Row.of(Tags.of("queue", name), s.paused() ? 1 : 0));
            if (s.pastRetention() >= 0) {
                pastRows.add(MultiGauge.Row.of(Tags.of("queue", name), s.pastRetention()));
            }
        }
        jobs.register(jobRows, true);
        lag.register(lagRows, true);
        paused.register(pausedRows, true);
        pastRetention.register(pastRows, true);
        scheduled.register(scheduledRows, true);
        workers.register(workerRows, true);
    }

    private static MultiGauge.Row<?> row(String queue, String state, long value) {
        return MultiGauge.Row.of(Tags.of("queue", queue, "state", state), value);
    }

    /** Removes the gauges from the registry (it may be the application's and outlive the dashboard). */
    @Override
    public synchronized void close() {
        jobs.register(List.of(), true);
        lag.register(List.of(), true);
        paused.register(List.of(), true);
        pastRetention.register(List.of(), true);
        scheduled.register(List.of(), true);
        workers.register(List.of(), true);
    }
}
