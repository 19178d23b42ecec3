package dev.delayq.internal.queue;

import dev.delayq.JobInfo;
import dev.delayq.JobState;
import dev.delayq.ScheduledState;
import dev.delayq.internal.ops.ListPage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * The scheduled jobs of one {@link ScheduledState}, as {@code stats.lua} counts them, read against one reading of
 * Redis's clock ({@code now}): ready, the scheduled jobs due by now (a prefix of the scheduled jobs in due order, so
 * the read stops at the first one due later); retrying, the retrying set's entries still to come whose job is
 * scheduled, in retry order; delayed, the scheduled jobs due later that are not retrying (the ids of the pending
 * retries are read first: memory in proportion to them, not to the queue). Operator reads, page by page, apart from
 * the hot path; jobs moving meanwhile may be seen twice or not at all.
 */
final class ScheduledStates {
    private ScheduledStates() {
    }

    static Stream<JobInfo> stream(Partitions parts, ScheduledState state, int preview) {
        long now = parts.first().backend().timeMicros() / 1000;
        return switch (state) {
            case READY -> parts.stream(JobState.SCHEDULED, preview).takeWhile(j -> j.dueAtMillis() <= now);
            case RETRYING -> retrying(parts, now, preview);
            case DELAYED -> {
                Set<String> retrying = new HashSet<>();
                retrying(parts, now, 0).forEach(j -> retrying.add(j.id()));
                yield parts.stream(JobState.SCHEDULED, preview).dropWhile(j -> j.dueAtMillis() <= now)
                        .filter(j -> !retrying.contains(j.id()));
            }
        };
    }

    /** Every partition's pending retries, merged in retry order. */
    private static Stream<JobInfo> retrying(Partitions parts, long now, int preview) {
        List<Iterator<JobInfo>> sources = new ArrayList<>();
        for (Partition p : parts.all()) {
            JobPages.Reader reader = (offset, count) -> p.backend().await(
                    ListPage.retrying(p.backend(), p.keys(), offset, count, preview), "list");
            sources.add(JobPages.stream(reader)
                    .filter(j -> j.state() == JobState.SCHEDULED && j.dueAtMillis() > now && !j.corrupt()).iterator());
        }
        Iterator<JobInfo> merged = sources.size() == 1 ? sources.get(0)
                : new MergedIterator<>(sources, Comparator.comparingLong(JobInfo::dueAtMillis));
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(merged, Spliterator.ORDERED | Spliterator.NONNULL), false);
    }
}
