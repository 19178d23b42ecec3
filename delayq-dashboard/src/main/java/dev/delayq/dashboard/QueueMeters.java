package dev.delayq.dashboard;

import dev.delayq.DelayQ;
import dev.delayq.GroupStats;
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
 *
 * <p>Issue 43: {@code delayq_queue_unreadable{queue}} is 1 for a queue whose keys cannot be read (its other series are
 * then absent). At most {@link #DEFAULT_MAX_QUEUES} queues (or the builder's {@code metricsQueueLimit}) get a label of
 * their own: unreadable ones first, then the largest backlog (scheduled + processing); the rest are added up under
 * {@code queue="(other)"} (jobs summed, the largest lag, the number paused and unreadable), and
 * {@code delayq_queues_other} says how many they are, so a prefix with thousands of queues cannot flood Prometheus.
 *
 * <p>Issues 40 and 41: {@code delayq_jobs{state="waiting"}} counts the jobs waiting for their parents (flows). A queue
 * with groups (its counts say so; a labelled queue only) also gets {@code delayq_groups{queue}} and
 * {@code delayq_group_jobs{queue, group, state}} (scheduled, running) for its {@code metricsGroupLimit} (default 20)
 * largest backlogs, its other groups added up under {@code group="(other)"}: one {@code group_stats.lua} call per
 * partition and scrape, none for a queue without groups.
 */
final class QueueMeters implements AutoCloseable {
    private final DelayQ dq;
    private final MultiGauge jobs;
    private final MultiGauge lag;
    private final MultiGauge paused;
    private final MultiGauge pastRetention;
    private final MultiGauge unreadable;
    private final MultiGauge scheduled;
    private final MultiGauge workers;
    /** The most queues with a label of their own; the rest are added up under {@link #OTHER}. */
    private final int maxQueues;
    private final MeterRegistry registry;
    private final java.util.concurrent.atomic.AtomicInteger otherCount = new java.util.concurrent.atomic.AtomicInteger();
    private final io.micrometer.core.instrument.Gauge otherGauge;

    /** The label of the queues past the cap: parentheses are not allowed in queue names, so no queue has it. */
    static final String OTHER = "(other)";
    /** The default cap on queue labels. */
    static final int DEFAULT_MAX_QUEUES = 500;
    /** The default cap on group labels per queue. */
    static final int DEFAULT_MAX_GROUPS = 20;
    /** The most groups with a label of their own per queue; the rest are added up under {@link #OTHER}. */
    private final int maxGroups;
    private final MultiGauge groupJobs;
    private final MultiGauge groupCount;

    /** Unreadable queues first (a flag must not fall into the sum), then the largest backlog, then by name. */
    private static final java.util.Comparator<QueueReads.Read> BY_ATTENTION = java.util.Comparator
            .comparing((QueueReads.Read r) -> r.stats() != null)
            .thenComparing(r -> r.stats() == null ? 0 : -(r.stats().scheduled() + r.stats().processing()))
            .thenComparing(QueueReads.Read::name);

    QueueMeters(DelayQ dq, MeterRegistry registry) {
        this(dq, registry, DEFAULT_MAX_QUEUES, DEFAULT_MAX_GROUPS);
    }

    QueueMeters(DelayQ dq, MeterRegistry registry, int maxQueues, int maxGroups) {
        this.dq = dq;
        this.maxQueues = maxQueues;
        this.maxGroups = maxGroups;
        this.registry = registry;
        this.otherGauge = io.micrometer.core.instrument.Gauge.builder("delayq.queues.other", otherCount, Number::doubleValue)
                .description("Queues past the label cap, added up under queue=\"(other)\"").register(registry);
        this.jobs = MultiGauge.builder("delayq.jobs")
                .description("Jobs per queue and state, read from Redis when scraped").register(registry);
        this.lag = MultiGauge.builder("delayq.oldest.due.lag").baseUnit("seconds")
                .description("How long the oldest due job of the queue has been waiting (0 when none is due)")
                .register(registry);
        this.paused = MultiGauge.builder("delayq.queue.paused")
                .description("1 while the queue is paused (workers do not claim from it)").register(registry);
        this.pastRetention = MultiGauge.builder("delayq.jobs.past.retention")
                .description("Done and dead jobs kept past their retention, waiting for the workers' purge").register(registry);
        this.unreadable = MultiGauge.builder("delayq.queue.unreadable")
                .description("1 when the queue's keys cannot be read (its other gauges are then absent)").register(registry);
        this.scheduled = MultiGauge.builder("delayq.scheduled.jobs")
                .description("Scheduled jobs per queue by state: ready (due now), delayed (due later), retrying (failed, "
                        + "waiting for a retry)").register(registry);
        this.workers = MultiGauge.builder("delayq.workers")
                .description("Live workers of the queue, by their heartbeats").register(registry);
        this.groupJobs = MultiGauge.builder("delayq.group.jobs")
                .description("A queue's groups with the largest backlogs: scheduled jobs and running leases per group; "
                        + "the queue's other groups added up under group=\"(other)\"").register(registry);
        this.groupCount = MultiGauge.builder("delayq.groups")
                .description("Groups of the queue with scheduled jobs or running leases").register(registry);
    }

    /** Reads every queue's counts and replaces the rows. */
    synchronized void refresh() {
        List<MultiGauge.Row<?>> jobRows = new ArrayList<>();
        List<MultiGauge.Row<?>> lagRows = new ArrayList<>();
        List<MultiGauge.Row<?>> pausedRows = new ArrayList<>();
        List<MultiGauge.Row<?>> pastRows = new ArrayList<>();
        List<MultiGauge.Row<?>> unreadableRows = new ArrayList<>();
        List<MultiGauge.Row<?>> scheduledRows = new ArrayList<>();
        List<MultiGauge.Row<?>> workerRows = new ArrayList<>();
        List<MultiGauge.Row<?>> groupRows = new ArrayList<>();
        List<MultiGauge.Row<?>> groupCountRows = new ArrayList<>();
        // Every queue's request sent before any answer is awaited; one queue that cannot be read is flagged, the others
        // are still served. Past maxQueues the queues with the smallest backlog share the label OTHER.
        List<QueueReads.Read> reads = new ArrayList<>(QueueReads.readAll(dq, dq.queues()));
        reads.sort(BY_ATTENTION);
        long[] other = new long[11]; // scheduled, processing, done, dead, the largest lag ms, paused queues,
                                     // ready, delayed, retrying, workers, waiting
        int otherQueues = 0;
        int otherReadable = 0;
        int otherUnreadable = 0;
        for (int i = 0; i < reads.size(); i++) {
            QueueReads.Read read = reads.get(i);
            QueueStats s = read.stats();
            if (i >= maxQueues) {
                otherQueues++;
                if (s == null) {
                    otherUnreadable++;
                } else {
                    otherReadable++;
                    other[0] += s.scheduled();
                    other[1] += s.processing();
                    other[2] += s.done();
                    other[3] += s.dead();
                    other[4] = Math.max(other[4], s.oldestDueLagMillis());
                    other[5] += s.paused() ? 1 : 0;
                    other[6] += s.ready();
                    other[7] += s.delayed();
                    other[8] += s.retrying();
                    other[9] += Math.max(0, s.workers());
                    other[10] += s.waiting();
                }
                continue;
            }
            String name = read.name();
            unreadableRows.add(MultiGauge.Row.of(Tags.of("queue", name), s == null ? 1 : 0));
            if (s == null) {
                continue;
            }
            scheduledRows.add(row(name, "ready", s.ready()));
            scheduledRows.add(row(name, "delayed", s.delayed()));
            scheduledRows.add(row(name, "retrying", s.retrying()));
            workerRows.add(MultiGauge.Row.of(Tags.of("queue", name), Math.max(0, s.workers())));
            jobRows.add(row(name, "scheduled", s.scheduled()));
            jobRows.add(row(name, "processing", s.processing()));
            jobRows.add(row(name, "done", s.done()));
            jobRows.add(row(name, "dead", s.dead()));
            jobRows.add(row(name, "waiting", s.waiting()));
            if (s.groups() > 0) {
                groups(name, groupRows, groupCountRows); // queues without groups: no call
            }
            lagRows.add(MultiGauge.Row.of(Tags.of("queue", name), s.oldestDueLagMillis() / 1000.0));
            pausedRows.add(MultiGauge.Row.of(Tags.of("queue", name), s.paused() ? 1 : 0));
            if (s.pastRetention() >= 0) {
                pastRows.add(MultiGauge.Row.of(Tags.of("queue", name), s.pastRetention()));
            }
        }
        if (otherQueues > 0) {
            unreadableRows.add(MultiGauge.Row.of(Tags.of("queue", OTHER), otherUnreadable));
            if (otherReadable > 0) {
                jobRows.add(row(OTHER, "scheduled", other[0]));
                jobRows.add(row(OTHER, "processing", other[1]));
                jobRows.add(row(OTHER, "done", other[2]));
                jobRows.add(row(OTHER, "dead", other[3]));
                jobRows.add(row(OTHER, "waiting", other[10]));
                lagRows.add(MultiGauge.Row.of(Tags.of("queue", OTHER), other[4] / 1000.0));
                pausedRows.add(MultiGauge.Row.of(Tags.of("queue", OTHER), other[5]));
                scheduledRows.add(row(OTHER, "ready", other[6]));
                scheduledRows.add(row(OTHER, "delayed", other[7]));
                scheduledRows.add(row(OTHER, "retrying", other[8]));
                workerRows.add(MultiGauge.Row.of(Tags.of("queue", OTHER), other[9]));
            }
        }
        otherCount.set(otherQueues);
        jobs.register(jobRows, true);
        lag.register(lagRows, true);
        paused.register(pausedRows, true);
        pastRetention.register(pastRows, true);
        unreadable.register(unreadableRows, true);
        scheduled.register(scheduledRows, true);
        workers.register(workerRows, true);
        groupJobs.register(groupRows, true);
        groupCount.register(groupCountRows, true);
    }

    /**
     * One queue's groups: the {@link #maxGroups} with the largest backlogs get a label of their own, the others are
     * added up under {@link #OTHER}. One {@code group_stats.lua} call per partition, ranking up to
     * {@link GroupStats#MAX_READ} groups (the script counts every group's backlog anyway; asking for them all makes
     * the sum of the others exact up to that many).
     */
    private void groups(String queue, List<MultiGauge.Row<?>> rows, List<MultiGauge.Row<?>> counts) {
        GroupStats g = dq.inspector(queue).groups(GroupStats.MAX_READ);
        counts.add(MultiGauge.Row.of(Tags.of("queue", queue), g.groups()));
        long scheduled = 0;
        long running = 0;
        for (int i = 0; i < g.top().size(); i++) {
            GroupStats.Group x = g.top().get(i);
            if (i < maxGroups) {
                rows.add(groupRow(queue, x.group(), "scheduled", x.scheduled()));
                rows.add(groupRow(queue, x.group(), "running", x.running()));
            } else {
                scheduled += x.scheduled();
                running += x.running();
            }
        }
        if (g.top().size() > maxGroups) {
            rows.add(groupRow(queue, OTHER, "scheduled", scheduled));
            rows.add(groupRow(queue, OTHER, "running", running));
        }
    }

    private static MultiGauge.Row<?> groupRow(String queue, String group, String state, long value) {
        return MultiGauge.Row.of(Tags.of("queue", queue, "group", group, "state", state), value);
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
        unreadable.register(List.of(), true);
        scheduled.register(List.of(), true);
        workers.register(List.of(), true);
        groupJobs.register(List.of(), true);
        groupCount.register(List.of(), true);
        registry.remove(otherGauge);
    }
}
