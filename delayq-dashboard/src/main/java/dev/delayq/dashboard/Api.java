package dev.delayq.dashboard;

import dev.delayq.ChangeResult;
import dev.delayq.DelayQ;
import dev.delayq.FlowLinks;
import dev.delayq.JobInfo;
import dev.delayq.QueueInspector;
import dev.delayq.JobState;
import dev.delayq.MinuteStats;
import dev.delayq.QueueStats;
import dev.delayq.ServerInfo;
import dev.delayq.internal.present.DurationText;
import dev.delayq.internal.present.JobActions;
import dev.delayq.internal.present.JobFields;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The JSON API under {@code /api}: a thin client of the same {@link QueueInspector} operations the command line uses.
 * Every answer is JSON; refusals are {@code {"error": "..."}} with 400 (bad parameter), 404 (no such queue or job),
 * 409 (the job's state does not allow the change) or 503 (Redis unreachable).
 */
final class Api {
    /** Most jobs per page of {@code /jobs}. */
    static final int MAX_LIMIT = 500;
    /** Longest history asked for at once: one day of minutes. */
    static final int MAX_HISTORY_MINUTES = 1440;
    /** The largest {@code offset} of {@code /jobs}: far past any real queue, well inside what the scripts take. */
    static final long MAX_OFFSET = 1_000_000_000_000L;
    /** The waiting children a job's answer lists (the rest are counted as {@code children.more}). */
    static final int CHILDREN_SHOWN = 20;
    /** The groups {@code /groups} lists by default, and the most it lists. */
    static final int GROUPS_SHOWN = 20;
    static final int MAX_GROUPS = 1000;

    /** The client, asked for on every request: inside an application it may connect to Redis after the start. */
    private final Supplier<? extends DelayQ> client;
    private final Access access;
    private final Supplier<? extends Map<String, ?>> outbox;

    Api(Supplier<? extends DelayQ> client, Access access, Supplier<? extends Map<String, ?>> outbox) {
        this.client = client;
        this.access = access;
        this.outbox = outbox;
    }

    private DelayQ dq() {
        return client.get();
    }

    void routes(Routes r) {
        r.get("/api/server", this::server);
        r.get("/api/queues", this::queues);
        r.get("/api/queues/{queue}", ctx -> json(ctx, WorkersApi.stats(queue(ctx))));
        r.get("/api/queues/{queue}/jobs", this::jobs);
        r.get("/api/queues/{queue}/jobs/{id}", this::job);
        r.get("/api/queues/{queue}/groups", this::groups);
        r.post("/api/queues/{queue}/jobs/{id}/retry", ctx -> change(ctx, JobActions.RETRY, q -> q.retryDead(id(ctx))));
        r.post("/api/queues/{queue}/jobs/{id}/run-now",
                ctx -> change(ctx, JobActions.RUN_NOW, q -> q.reschedule(id(ctx), Duration.ZERO)));
        r.post("/api/queues/{queue}/jobs/{id}/cancel", ctx -> change(ctx, JobActions.CANCEL, q -> q.cancel(id(ctx))));
        r.post("/api/queues/{queue}/jobs/{id}/reschedule", this::reschedule);
        r.delete("/api/queues/{queue}/jobs/{id}", ctx -> change(ctx, JobActions.DELETE, q -> q.delete(id(ctx))));
        r.post("/api/queues/{queue}/dead/retry-all", ctx -> {
            long n = queue(ctx).retryAllDead();
            json(ctx, Map.of("retried", n));
        });
        r.post("/api/queues/{queue}/pause", ctx -> {
            QueueInspector q = queue(ctx);
            q.pause();
            json(ctx, Map.of("queue", q.name(), "paused", true));
        });
        r.post("/api/queues/{queue}/resume", ctx -> {
            QueueInspector q = queue(ctx);
            q.resume();
            json(ctx, Map.of("queue", q.name(), "paused", false));
        });
        r.get("/api/queues/{queue}/history", this::history);
        // Workers, schedules, limits and events: their own classes (issue 43).
        new WorkersApi(client).routes(r);
        new QueueToolsApi(client).routes(r);
        r.post("/api/queues/{queue}/dead/delete-all", ctx -> json(ctx, Map.of("deleted", queue(ctx).deleteAllDead())));
        r.get("/api/queues/{queue}/search", this::search);
        new MatchingApi(client).routes(r);
    }

    /** {@code ?state=dead&q=timeout&from=0}: a bounded scan ({@link Search}). */
    private void search(Exchange ctx) {
        QueueInspector q = queue(ctx);
        JobFilter state = JobFilter.parse(ctx.queryParam("state"));
        String text = ctx.queryParam("q");
        if (text == null || text.isBlank() || text.length() > Search.MAX_TEXT) {
            throw ApiException.badRequest("q is " + (text == null ? "missing" : text.isBlank() ? "blank" : "longer than "
                    + Search.MAX_TEXT + " characters") + ": give the start of an id, or text of a name or an error (1 to "
                    + Search.MAX_TEXT + " characters)");
        }
        json(ctx, Search.run(q, state, text.strip(), longParam(ctx, "from", 0, 0, MAX_OFFSET)));
    }

    private void server(Exchange ctx) {
        DelayQ dq = dq();
        ServerInfo s = dq.serverInfo();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("server", s.server());
        m.put("mode", s.mode());
        m.put("version", s.version());
        m.put("usedMemoryBytes", s.usedMemoryBytes());
        m.put("maxMemoryBytes", s.maxMemoryBytes());
        m.put("connectedClients", s.connectedClients());
        m.put("uptimeSeconds", s.uptimeSeconds());
        m.put("serverTime", dq.serverTime().toString());
        m.put("prefix", dq.prefix());
        m.put("readOnly", access.readOnly());
        m.put("tokenRequired", access.tokenRequired());
        if (outbox != null) {
            m.put("outbox", outboxStatus());
        }
        json(ctx, m);
    }

    /** The application's outbox status; a failing supplier is reported in the block, not as a failed request. */
    private Map<String, ?> outboxStatus() {
        try {
            Map<String, ?> status = outbox.get();
            return status != null ? status : Map.of("error", "no outbox status");
        } catch (RuntimeException e) {
            return Map.of("error", String.valueOf(e.getMessage()));
        }
    }

    private void queues(Exchange ctx) {
        List<Map<String, Object>> all = new ArrayList<>();
        DelayQ dq = dq();
        for (QueueReads.Read q : QueueReads.readAll(dq, dq.queues())) {
            all.add(q.stats() != null ? WorkersApi.stats(q.stats(), dq.inspector(q.name()))
                    : QueueReads.unreadable(q.name(), q.error()));
        }
        json(ctx, all);
    }

    private void jobs(Exchange ctx) {
        QueueInspector q = queue(ctx);
        JobFilter filter = JobFilter.parse(ctx.queryParam("state"));
        long offset = longParam(ctx, "offset", 0, 0, MAX_OFFSET);
        int limit = (int) longParam(ctx, "limit", 50, 1, MAX_LIMIT);
        long total = filter.total(q.stats());
        List<Map<String, Object>> jobs = new ArrayList<>();
        boolean newest = JobOrder.newest(ctx, filter);
        for (JobInfo j : JobOrder.page(q, filter, newest, total, offset, limit)) {
            jobs.add(JobFields.job(j, Dashboard.PAYLOAD_PREVIEW_BYTES));
        }
        if (filter.state() == JobState.PROCESSING) {
            WorkersApi.annotate(q, jobs);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("jobs", jobs);
        m.put("total", total);
        m.put("state", filter.label());
        m.put("offset", offset);
        m.put("limit", limit);
        m.put("order", newest ? "newest" : "oldest");
        json(ctx, m);
    }

    private void job(Exchange ctx) {
        QueueInspector q = queue(ctx);
        String id = id(ctx);
        JobInfo j = q.get(id, Dashboard.PAYLOAD_PREVIEW_BYTES).orElseThrow(() -> noJob(q, id));
        Map<String, Object> m = JobFields.job(j, Dashboard.PAYLOAD_PREVIEW_BYTES, q.errors(id));
        // Flows (docs/flows.md): the counts, then, only for a job that has links, the jobs behind them.
        FlowLinks links = q.links(id).orElse(null);
        JobFields.links(m, links);
        if (links != null && (links.waiting() || links.waitingChildren() > 0)) {
            JobFields.flowIds(m, q.flowIds(id, CHILDREN_SHOWN).orElse(null));
        }
        json(ctx, m);
    }

    /** {@code ?top=20}: the queue's groups with the largest backlogs, as {@code delayq stats Q --groups --json}. */
    private void groups(Exchange ctx) {
        QueueInspector q = queue(ctx);
        int top = (int) longParam(ctx, "top", GROUPS_SHOWN, 1, MAX_GROUPS);
        json(ctx, JobFields.groups(q.name(), q.groups(top)));
    }

    private void history(Exchange ctx) {
        QueueInspector q = queue(ctx);
        String window = ctx.queryParam("window");
        if (window != null) {
            if (ctx.queryParam("minutes") != null) {
                throw ApiException.badRequest("give either window (1h, 24h or 7d) or minutes (1 to " + MAX_HISTORY_MINUTES
                        + "), not both");
            }
            json(ctx, HistoryWindow.parse(window).read(q));
            return;
        }
        int minutes = (int) longParam(ctx, "minutes", 60, 1, MAX_HISTORY_MINUTES);
        List<Map<String, Object>> rows = new ArrayList<>();
        for (MinuteStats m : q.history(minutes)) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("minute", m.minute().toString());
            row.put("enqueued", m.enqueued());
            row.put("completed", m.completed());
            row.put("retried", m.retried());
            row.put("dead", m.dead());
            row.put("lagP50Millis", Double.isNaN(m.lagP50Millis()) ? null : m.lagP50Millis());
            row.put("lagP99Millis", Double.isNaN(m.lagP99Millis()) ? null : m.lagP99Millis());
            rows.add(row);
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("queue", q.name());
        answer.put("minutes", rows);
        json(ctx, answer);
    }

    private void reschedule(Exchange ctx) {
        String delay = ctx.queryParam("delay");
        String at = ctx.queryParam("at");
        if ((delay == null) == (at == null)) {
            throw ApiException.badRequest("give either delay (e.g. 30s, 5m, 1h30m) or at (e.g. 2030-01-01T09:00:00Z)");
        }
        if (delay != null) {
            Duration d = param("delay", delay, DurationText::parseNonNegative);
            change(ctx, JobActions.RESCHEDULE, q -> q.reschedule(id(ctx), d));
        } else {
            Instant i = param("at", at, DurationText::parseInstant);
            change(ctx, JobActions.RESCHEDULE, q -> q.reschedule(id(ctx), i));
        }
    }

    /** Runs one change of one job and answers 200, 404 or 409 (the refusal of {@link JobActions}). */
    private void change(Exchange ctx, JobActions action, Function<QueueInspector, ChangeResult> op) {
        QueueInspector q = queue(ctx);
        String id = id(ctx);
        ChangeResult r = op.apply(q);
        switch (r.status()) {
            case NOT_FOUND -> throw noJob(q, id);
            case WRONG_STATE -> throw new ApiException(409, action.refusal(id, r.state()));
            default -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("id", id);
                m.put("changed", true);
                m.put("dueAt", r.at() != null ? r.at().toString() : null);
                json(ctx, m);
            }
        }
    }

    /**
     * A parameter read by the shared grammar ({@link DurationText}); 400 naming the parameter, the value and what is
     * accepted: {@code delay is 'soon': use a number with ms, s, m, h or d (...) or ISO-8601 (PT30S)}.
     */
    private static <T> T param(String name, String value, Function<String, T> parse) {
        try {
            return parse.apply(value);
        } catch (DurationText.Invalid e) {
            throw ApiException.badRequest(name + " is '" + value + "': " + e.reason());
        }
    }

    /** The queue named in the path; 404 when no job was ever enqueued to it (the name is not recorded). */
    private QueueInspector queue(Exchange ctx) {
        String name = DotSegments.param(ctx, "queue");
        // Check the registry first: dq.queue() keeps every queue it opened, so names from URLs must not reach it.
        DelayQ dq = dq();
        if (!dq.queues().contains(name)) {
            throw ApiException.notFound("no queue '" + name + "'");
        }
        return dq.inspector(name);
    }

    private static String id(Exchange ctx) {
        return DotSegments.param(ctx, "id");
    }

    private static ApiException noJob(QueueInspector q, String id) {
        return ApiException.notFound("no job '" + id + "' in queue '" + q.name() + "'");
    }

    private static long longParam(Exchange ctx, String name, long dflt, long min, long max) {
        String v = ctx.queryParam(name);
        if (v == null) {
            return dflt;
        }
        try {
            long n = Long.parseLong(v.strip());
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw ApiException.badRequest(name + " is '" + v + "': it must be a whole number from " + min
                + (max == Long.MAX_VALUE ? " up" : " to " + max));
    }

    static void json(Exchange ctx, Object value) {
        ctx.respond(200, "application/json", Errors.json(value).getBytes(StandardCharsets.UTF_8));
    }
}
