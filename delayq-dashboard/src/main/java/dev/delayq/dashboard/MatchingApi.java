package dev.delayq.dashboard;

import dev.delayq.ChangeResult;
import dev.delayq.DelayQ;
import dev.delayq.JobInfo;
import dev.delayq.JobState;
import dev.delayq.QueueInspector;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * Bulk changes of every job matching a job list's filter (its {@code state} tab and, when given, its search text
 * {@code q}), across pages, not only the page on screen (issue 43): {@code GET /api/queues/{queue}/matching} counts them
 * for the confirmation; {@code POST .../matching/retry} (dead jobs) and {@code POST .../matching/delete} (any state but
 * processing) change them in bounded steps. A step reads one page of at most {@link #STEP} jobs of the filter and
 * changes each matching one by its own script ({@code retry_dead.lua}, {@code delete.lua}: one job, atomic), so a
 * request cut off anywhere leaves every job either where it was or where it was going, never half-moved; one request
 * changes at most {@link #MOST_PER_REQUEST} jobs and reads at most {@link #MOST_READ}, and answers {@code more} with
 * {@code from}, where the next request goes on (the page repeats them until {@code more} is false). A job that changed
 * state meanwhile is stepped over ({@code skipped}), never changed in its new state.
 */
final class MatchingApi {
    /** Jobs read per step. */
    static final int STEP = 100;
    /** Most jobs one request changes. */
    static final int MOST_PER_REQUEST = 2_000;
    /** Most jobs one request reads (a search that matches few jobs stops here too). */
    static final int MOST_READ = 20_000;
    /** Most jobs a count with search text reads; past it the count is a lower bound ({@code exact} false). */
    static final int MOST_COUNTED = 100_000;
    private static final int PREVIEW = 256;

    private final Supplier<? extends DelayQ> client;

    MatchingApi(Supplier<? extends DelayQ> client) {
        this.client = client;
    }

    void routes(Routes r) {
        r.get("/api/queues/{queue}/matching", this::count);
        r.post("/api/queues/{queue}/matching/retry", ctx -> change(ctx, "retry", (q, id) -> q.retryDead(id)));
        r.post("/api/queues/{queue}/matching/delete", ctx -> change(ctx, "delete", (q, id) -> q.delete(id)));
    }

    private QueueInspector queue(Exchange ctx) {
        String name = DotSegments.param(ctx, "queue");
        DelayQ dq = client.get();
        if (!dq.queues().contains(name)) {
            throw ApiException.notFound("no queue '" + name + "'");
        }
        return dq.inspector(name);
    }

    /** The search text, null when none; 400 when too long. */
    private static String text(Exchange ctx) {
        String text = ctx.queryParam("q");
        if (text == null || text.isBlank()) {
            return null;
        }
        if (text.length() > Search.MAX_TEXT) {
            throw ApiException.badRequest("q is longer than " + Search.MAX_TEXT + " characters: give the start of an id, or "
                    + "text of a name or an error (1 to " + Search.MAX_TEXT + " characters)");
        }
        return text.strip();
    }

    /** {@code {state, q, count, exact}}: the filter's count ({@code stats}), or with text a bounded count of matches. */
    private void count(Exchange ctx) {
        QueueInspector q = queue(ctx);
        JobFilter filter = JobFilter.parse(ctx.queryParam("state"));
        String text = text(ctx);
        long count = 0;
        boolean exact = true;
        if (text == null) {
            count = filter.total(q.stats());
        } else {
            long pos = 0;
            while (true) {
                if (pos >= MOST_COUNTED) {
                    exact = false;
                    break;
                }
                List<JobInfo> page = filter.page(q, pos, (int) Math.min(500, MOST_COUNTED - pos), PREVIEW);
                if (page.isEmpty()) {
                    break;
                }
                pos += page.size();
                count += page.stream().filter(j -> Search.matches(j, text)).count();
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("state", filter.label());
        m.put("q", text);
        m.put("count", count);
        m.put("exact", exact);
        json(ctx, m);
    }

    /**
     * {@code {action, state, q, changed, skipped, more, from}}: the matching jobs from position {@code from} changed by
     * {@code op}, in steps of {@link #STEP}.
     */
    private void change(Exchange ctx, String action, BiFunction<QueueInspector, String, ChangeResult> op) {
        QueueInspector q = queue(ctx);
        JobFilter filter = JobFilter.parse(ctx.queryParam("state"));
        if (action.equals("retry") && filter.state() != JobState.DEAD) {
            throw ApiException.badRequest("retry applies to dead jobs: state is '" + filter.label() + "', use state=dead");
        }
        if (filter.state() == JobState.PROCESSING) {
            throw ApiException.badRequest("delete applies to jobs that are not running: state is 'processing', use "
                    + "scheduled, ready, delayed, retrying, done or dead");
        }
        String text = text(ctx);
        long pos = from(ctx);
        long changed = 0;
        long skipped = 0;
        long read = 0;
        boolean more = true;
        while (changed < MOST_PER_REQUEST && read < MOST_READ) {
            List<JobInfo> page = filter.page(q, pos, STEP, PREVIEW);
            if (page.isEmpty()) {
                more = false;
                break;
            }
            read += page.size();
            long stays = 0; // jobs of this page still in the index after the step: the next page starts past them
            for (JobInfo j : page) {
                if (text != null && !Search.matches(j, text) || changed >= MOST_PER_REQUEST) {
                    stays++;
                    continue;
                }
                if (op.apply(q, j.id()).changed()) {
                    changed++;
                } else {
                    skipped++; // gone or moved meanwhile: not in this index any more, or left as it is
                    stays++;
                }
            }
            pos += stays;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("action", action);
        m.put("state", filter.label());
        m.put("q", text);
        m.put("changed", changed);
        m.put("skipped", skipped);
        m.put("more", more);
        m.put("from", more ? pos : null);
        json(ctx, m);
    }

    private static long from(Exchange ctx) {
        String v = ctx.queryParam("from");
        if (v == null) {
            return 0;
        }
        try {
            long n = Long.parseLong(v.strip());
            if (n >= 0 && n <= Api.MAX_OFFSET) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw ApiException.badRequest("from is '" + v + "': it must be a whole number from 0 to " + Api.MAX_OFFSET);
    }

    private static void json(Exchange ctx, Object value) {
        Api.json(ctx, value);
    }
}
