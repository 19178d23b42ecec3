package dev.delayq.internal.queue;

import dev.delayq.ChangeResult;
import dev.delayq.CheckReport;
import dev.delayq.Events;
import dev.delayq.GroupStats;
import dev.delayq.JobInfo;
import dev.delayq.JobState;
import dev.delayq.Limits;
import dev.delayq.MinuteStats;
import dev.delayq.PurgeResult;
import dev.delayq.QueueInspector;
import dev.delayq.QueueStats;
import dev.delayq.ScheduledState;
import dev.delayq.WorkerInfo;
import dev.delayq.internal.ClientSettings;
import dev.delayq.internal.base.ScriptLimits;
import dev.delayq.internal.base.Validation;
import dev.delayq.internal.ops.ListPage;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

/**
 * The operator's operations on a queue ({@link QueueInspector}), each validated once and routed as {@link Partitions}
 * declares: by id to the job's partition, everything else to every partition with the answers merged.
 */
final class RedisInspector implements QueueInspector {
    private final ClientSettings settings;
    private final Partitions parts;
    private final RedisQueue queue;

    RedisInspector(ClientSettings settings, Partitions parts, RedisQueue queue) {
        this.settings = settings;
        this.parts = parts;
        this.queue = queue;
    }

    @Override
    public String name() {
        return parts.name();
    }

    // ---- by id: the producer's operations, and the operator's own -------------------------------------------------

    @Override
    public ChangeResult cancel(String id) {
        return queue.cancel(id);
    }

    @Override
    public ChangeResult cancelByDedupeKey(String key) {
        return queue.cancelByDedupeKey(key);
    }

    @Override
    public ChangeResult reschedule(String id, Duration delay) {
        return queue.reschedule(id, delay);
    }

    @Override
    public ChangeResult reschedule(String id, Instant at) {
        return queue.reschedule(id, at);
    }

    @Override
    public Optional<JobInfo> get(String id) {
        return queue.get(id);
    }

    @Override
    public Optional<dev.delayq.FlowLinks> links(String id) {
        Validation.jobId(id);
        return parts.of(id).links(id);
    }

    @Override
    public Optional<dev.delayq.FlowIds> flowIds(String id, int mostChildren) {
        Validation.jobId(id);
        Validation.range("most children", mostChildren, 0, dev.delayq.internal.ops.FlowIdsRead.MAX_CHILDREN);
        return parts.of(id).flowIds(id, mostChildren);
    }

    @Override
    public ChangeResult rescheduleByDedupeKey(String key, Duration delay) {
        Validation.dedupeKey(key);
        Validation.delay("delay", delay);
        return parts.of(key).rescheduleByDedupeKey(key, delay, null);
    }

    @Override
    public ChangeResult rescheduleByDedupeKey(String key, Instant at) {
        Validation.dedupeKey(key);
        Validation.instant("instant", at);
        return parts.of(key).rescheduleByDedupeKey(key, null, at);
    }

    @Override
    public Optional<JobInfo> getByDedupeKey(String key) {
        Validation.dedupeKey(key);
        return parts.of(key).getByDedupeKey(key);
    }

    @Override
    public List<dev.delayq.JobError> errors(String id) {
        Validation.jobId(id);
        return parts.of(id).errors(id);
    }

    @Override
    public ChangeResult delete(String id) {
        Validation.jobId(id);
        return parts.of(id).delete(id);
    }

    @Override
    public ChangeResult retryDead(String id) {
        Validation.jobId(id);
        return parts.of(id).retryDead(id);
    }

    // ---- reads --------------------------------------------------------------------------------------------------

    @Override
    public List<JobInfo> list(JobState state, long offset, int limit) {
        return list(state, offset, limit, ListPage.WHOLE, false);
    }

    @Override
    public List<JobInfo> list(JobState state, long offset, int limit, int previewBytes) {
        return list(state, offset, limit, previewBytes, true);
    }

    private List<JobInfo> list(JobState state, long offset, int limit, int preview, boolean checkPreview) {
        checkState(state);
        if (offset < 0) {
            throw new IllegalArgumentException("offset is " + offset + ": it must be zero or positive");
        }
        Validation.range("limit", limit, 1, 10_000);
        if (checkPreview) {
            Validation.range("preview bytes", preview, 0, Integer.MAX_VALUE);
        }
        return parts.list(state, offset, limit, preview);
    }

    @Override
    public Optional<JobInfo> get(String id, int previewBytes) {
        Validation.jobId(id);
        Validation.range("preview bytes", previewBytes, 0, Integer.MAX_VALUE);
        return parts.of(id).get(id, previewBytes);
    }

    @Override
    public Stream<JobInfo> stream(JobState state) {
        checkState(state);
        return parts.stream(state);
    }

    @Override
    public Stream<JobInfo> stream(ScheduledState state) {
        return stream(state, ListPage.WHOLE);
    }

    @Override
    public List<JobInfo> list(ScheduledState state, long offset, int limit, int previewBytes) {
        if (offset < 0) {
            throw new IllegalArgumentException("offset is " + offset + ": it must be zero or positive");
        }
        Validation.range("limit", limit, 1, 10_000);
        Validation.range("preview bytes", previewBytes, 0, Integer.MAX_VALUE);
        return stream(state, previewBytes).skip(offset).limit(limit).toList();
    }

    private Stream<JobInfo> stream(ScheduledState state, int preview) {
        if (state == null) {
            throw new IllegalArgumentException("state must not be null: use ready, delayed or retrying");
        }
        return ScheduledStates.stream(parts, state, preview);
    }

    private static void checkState(JobState state) {
        if (state == null) {
            throw new IllegalArgumentException("state must not be null: use scheduled, processing, done or dead");
        }
    }

    @Override
    public QueueStats stats() {
        return parts.stats();
    }

    @Override
    public CompletableFuture<QueueStats> statsAsync() {
        return parts.statsAsync();
    }

    /** The queue's one worker registry (of its plain key set, whatever the partition count). */
    @Override
    public List<WorkerInfo> workers() {
        return parts.first().workers();
    }

    /** The partitions' histories, minute by minute: counts added, lag percentiles the worst partition's. */
    @Override
    public List<MinuteStats> history(int minutes) {
        Validation.range("minutes", minutes, 1, ScriptLimits.HISTORY_MINUTES);
        return parts.history(minutes);
    }

    /** The partitions' histories, hour by hour: counts added, lag percentiles the worst partition's. */
    @Override
    public List<MinuteStats> hourlyHistory(int hours) {
        Validation.range("hours", hours, 1, ScriptLimits.HISTORY_HOURS);
        return parts.hourlyHistory(hours);
    }

    @Override
    public CheckReport check() {
        return parts.check();
    }

    // ---- the whole queue ----------------------------------------------------------------------------------------

    /** Pauses every partition (each one's claims see its own flag). */
    @Override
    public boolean pause() {
        return parts.any(p -> p.pause(true));
    }

    @Override
    public boolean resume() {
        return parts.any(p -> p.pause(false));
    }

    /**
     * Each partition enforces its share of the limits (the limit divided by the partition count, the remainder spread
     * over the first partitions), so the queue as a whole never exceeds them; on a partitioned queue a limit below the
     * partition count is refused (a partition with a share of 0 could never run a job).
     */
    @Override
    public void limits(Limits limits) {
        PartitionTotals.splitLimits(name(), parts.all(), limits);
    }

    @Override
    public Limits limits() {
        return stats().limits();
    }

    @Override
    public void groupLimits(Limits limits) {
        GroupSettings.limits(name(), parts.all(), limits);
    }

    @Override
    public void groupLimits(String group, Limits limits) {
        GroupSettings.override(name(), parts.all(), Validation.group(group), limits);
    }

    @Override
    public void groupWeight(String group, int weight) {
        Validation.group(group);
        Validation.range("group weight", weight, 1, 1000);
        parts.all().forEach(p -> p.group(group, "= = = " + weight));
    }

    @Override
    public void clearGroupLimits(String group) {
        Validation.group(group);
        parts.all().forEach(p -> p.group(group, ""));
    }

    @Override
    public GroupStats groups(int top) {
        Validation.range("top groups", top, 1, 10_000);
        return GroupSettings.merge(parts.all().stream().map(p -> p.groups(top)).toList(), top);
    }

    @Override
    public void events(boolean enabled) {
        parts.all().forEach(p -> p.events(enabled ? Partition.DEFAULT_EVENTS_CAP : 0));
    }

    @Override
    public void events(int cap) {
        Validation.range("events cap", cap, 1, 100_000_000);
        parts.all().forEach(p -> p.events(cap));
    }

    @Override
    public Events events() {
        return new StreamEvents(parts.all(), () -> stats().eventsCap() > 0);
    }

    @Override
    public long retryAllDead() {
        return parts.sum(Partition::retryAllDead);
    }

    @Override
    public long deleteAllDead() {
        return parts.purge(-1, 0).dead();
    }

    @Override
    public PurgeResult purge() {
        return parts.purge(settings.doneRetention().toMillis(), settings.deadRetention().toMillis());
    }

    @Override
    public PurgeResult purge(Duration olderThan) {
        Validation.delay("older-than", olderThan);
        return parts.purge(olderThan.toMillis(), olderThan.toMillis());
    }
}
