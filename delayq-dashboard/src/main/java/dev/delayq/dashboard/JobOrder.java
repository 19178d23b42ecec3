package dev.delayq.dashboard;

import dev.delayq.JobInfo;
import dev.delayq.JobState;
import dev.delayq.QueueInspector;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The {@code order} of a page of done or dead jobs: {@code oldest} first (index order, the default) or {@code newest}
 * first, read as the mirrored page of the index (its last jobs, reversed), so either costs one bounded read. Other
 * states keep their index order (due time, lease expiry).
 */
final class JobOrder {
    private JobOrder() {
    }

    /** Whether the request asks for newest first; 400 for an order that is neither. */
    static boolean newest(Exchange ctx, JobFilter filter) {
        JobState state = filter.waiting() != null ? null : filter.state();
        String order = ctx.queryParam("order");
        if (order == null || order.isBlank() || order.strip().equals("oldest")) {
            return false;
        }
        if (!order.strip().equals("newest")) {
            throw ApiException.badRequest("order is '" + order + "': use oldest or newest");
        }
        return state == JobState.DONE || state == JobState.DEAD;
    }

    /** The page of {@code limit} jobs from {@code offset}, counted from the newest when {@code newest}. */
    static List<JobInfo> page(QueueInspector q, JobFilter filter, boolean newest, long total, long offset, int limit) {
        if (!newest) {
            return filter.page(q, offset, limit, Dashboard.PAYLOAD_PREVIEW_BYTES);
        }
        JobState state = filter.state();
        long end = total - offset; // exclusive, in index order
        if (end <= 0) {
            return List.of();
        }
        long from = Math.max(0, end - limit);
        List<JobInfo> page = new ArrayList<>(q.list(state, from, (int) (end - from), Dashboard.PAYLOAD_PREVIEW_BYTES));
        Collections.reverse(page);
        return page;
    }
}
