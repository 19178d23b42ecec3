package dev.delayq.dashboard;

import dev.delayq.ChangeResult;
import dev.delayq.DelayQ;
import dev.delayq.Events;
import dev.delayq.JobEvent;
import dev.delayq.Limits;
import dev.delayq.QueueInspector;
import dev.delayq.Schedule;
import dev.delayq.ScheduleInfo;
import dev.delayq.internal.present.DurationText;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A queue's schedules, limits and event stream in the API, through the same operations the command line uses
 * ({@code delayq schedule}, {@code delayq limit}, {@code delayq events}):
 * <ul>
 *   <li>{@code GET /api/queues/{queue}/schedules}: each schedule with its next tick in UTC and in its zone, last tick,
 *   missed-tick policy and its pending tick's job id;</li>
 *   <li>{@code POST /api/queues/{queue}/schedules/{name}/run-now}: the pending tick's job becomes due now (as
 *   {@code Run now} of a job: the schedule goes on at its next tick after that);</li>
 *   <li>{@code POST /api/queues/{queue}/schedules/{name}/pause} and {@code .../resume}: pauses it (its pending tick
 *   cancelled when not yet started, no tick until resumed) or resumes it (the next tick after now: those that passed
 *   while paused skipped); answers the schedule with {@code changed} (false when it already was so);</li>
 *   <li>{@code DELETE /api/queues/{queue}/schedules/{name}}: removes it, its pending tick cancelled;</li>
 *   <li>{@code POST /api/queues/{queue}/limits?rate=N/DUR&concurrency=N}: each one given replaces that limit
 *   ({@code none} or empty removes it), the other stays; answers the limits that hold;</li>
 *   <li>{@code GET /api/queues/{queue}/events?after=ID&max=N}: at most {@code max} (1 to 200) entries of the event
 *   stream after {@code after} (from 10 minutes ago when absent), one bounded read.</li>
 * </ul>
 */
final class QueueToolsApi {
    /** Most events per request. */
    static final int MAX_EVENTS = 200;
    /** How far back the first read of the event stream starts. */
    static final Duration RECENT = Duration.ofMinutes(10);

    private final Supplier<? extends DelayQ> client;

    QueueToolsApi(Supplier<? extends DelayQ> client) {
        this.client = client;
    }

    void routes(Routes r) {
        r.get("/api/queues/{queue}/schedules", this::schedules);
        r.post("/api/queues/{queue}/schedules/{name}/run-now", this::runNow);
        r.post("/api/queues/{queue}/schedules/{name}/pause", ctx -> pauseOrResume(ctx, true));
        r.post("/api/queues/{queue}/schedules/{name}/resume", ctx -> pauseOrResume(ctx, false));
        r.delete("/api/queues/{queue}/schedules/{name}", this::remove);
        r.post("/api/queues/{queue}/limits", this::limits);
        r.get("/api/queues/{queue}/events", this::events);
    }

    /** The queue named in the path, known to the registry (404 otherwise: names from URLs must not create queues). */
    private String known(Exchange ctx) {
        String name = ctx.pathParam("queue");
        if (!client.get().queues().contains(name)) {
            throw ApiException.notFound("no queue '" + name + "'");
        }
        return name;
    }

    private void schedules(Exchange ctx) {
        String queue = known(ctx);
        List<Map<String, Object>> all = new ArrayList<>();
        for (ScheduleInfo i : client.get().queue(queue).schedules().list()) {
            all.add(schedule(i));
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("queue", queue);
        m.put("schedules", all);
        Api.json(ctx, m);
    }

    static Map<String, Object> schedule(ScheduleInfo i) {
        Schedule s = i.schedule();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", s.name());
        m.put("spec", s.spec());
        m.put("cron", s.cronExpression());
        m.put("every", s.every() != null ? DurationText.format(s.every()) : null);
        m.put("zone", s.zone() != null ? s.zone().getId() : "UTC");
        m.put("nextTick", text(i.nextTick()));
        m.put("nextTickLocal", i.nextTick() != null && s.zone() != null
                ? i.nextTick().atZone(s.zone()).toOffsetDateTime().toString() : text(i.nextTick()));
        m.put("lastTick", text(i.lastTick()));
        m.put("missed", s.missed().name().toLowerCase(java.util.Locale.ROOT));
        m.put("maxAttempts", s.maxAttempts());
        m.put("noOverlap", s.noOverlap());
        m.put("start", text(s.start()));
        m.put("end", text(s.end()));
        m.put("pendingJob", i.nextTick() != null ? ScheduleInfo.tickId(s.name(), i.nextTick()) : null);
        m.put("paused", i.paused());
        return m;
    }

    private static String text(Instant i) {
        return i != null ? i.toString() : null;
    }

    private ScheduleInfo existing(DelayQ dq, String queue, String name) {
        Optional<ScheduleInfo> i = dq.queue(queue).schedules().get(name);
        return i.orElseThrow(() -> ApiException.notFound("no schedule '" + name + "' in queue '" + queue + "'"));
    }

    private void runNow(Exchange ctx) {
        String queue = known(ctx);
        String name = ctx.pathParam("name");
        DelayQ dq = client.get();
        ScheduleInfo i = existing(dq, queue, name);
        if (i.nextTick() == null) {
            throw new ApiException(409, "schedule '" + name + "' has no pending tick (" + (i.paused() ? "it is paused: "
                    + "resume it first" : "it ended") + "): nothing to run");
        }
        String id = ScheduleInfo.tickId(name, i.nextTick());
        ChangeResult r = dq.inspector(queue).reschedule(id, Duration.ZERO);
        if (r.status() != ChangeResult.Status.CHANGED) {
            throw new ApiException(409, "the pending tick '" + id + "' of schedule '" + name + "' is not scheduled ("
                    + (r.state() != null ? r.state().label() : "not found") + "): it runs already or was removed");
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("schedule", name);
        m.put("id", id);
        m.put("dueAt", r.at() != null ? r.at().toString() : null);
        Api.json(ctx, m);
    }

    private void pauseOrResume(Exchange ctx, boolean pause) {
        String queue = known(ctx);
        String name = ctx.pathParam("name");
        DelayQ dq = client.get();
        boolean already = existing(dq, queue, name).paused() == pause; // to answer "changed"; the change is atomic
        boolean found = pause ? dq.queue(queue).schedules().pause(name) : dq.queue(queue).schedules().resume(name);
        if (!found) {
            throw ApiException.notFound("no schedule '" + name + "' in queue '" + queue + "'");
        }
        Map<String, Object> m = schedule(existing(dq, queue, name));
        m.put("changed", !already);
        Api.json(ctx, m);
    }

    private void remove(Exchange ctx) {
        String queue = known(ctx);
        String name = ctx.pathParam("name");
        if (!client.get().queue(queue).schedules().remove(name)) {
            throw ApiException.notFound("no schedule '" + name + "' in queue '" + queue + "'");
        }
        Api.json(ctx, Map.of("schedule", name, "removed", true));
    }

    private void limits(Exchange ctx) {
        String queue = known(ctx);
        String rate = ctx.queryParam("rate");
        String concurrency = ctx.queryParam("concurrency");
        if (rate == null && concurrency == null) {
            throw ApiException.badRequest("give rate (e.g. 50/1s, 10/s; none removes it) and/or concurrency (e.g. 5; "
                    + "none removes it)");
        }
        QueueInspector q = client.get().inspector(queue);
        Limits now = q.limits();
        Limits wanted = Limits.none();
        try {
            if (rate == null) {
                wanted = now.rateJobs() > 0 ? wanted.withRate(now.rateJobs(), now.ratePer()) : wanted;
            } else if (!isNone(rate)) {
                DurationText.Rate r = DurationText.parseRate("rate", rate.strip());
                wanted = wanted.withRate(r.jobs(), r.per());
            }
            if (concurrency == null) {
                wanted = now.concurrency() > 0 ? wanted.concurrency(now.concurrency()) : wanted;
            } else if (!isNone(concurrency)) {
                wanted = wanted.concurrency(Integer.parseInt(concurrency.strip()));
            }
        } catch (NumberFormatException e) {
            throw ApiException.badRequest("concurrency is '" + concurrency + "': use a whole number from 1 to "
                    + "1000000000, or none");
        } catch (DurationText.Invalid e) {
            throw ApiException.badRequest("rate is '" + rate + "': " + e.reason());
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        q.limits(wanted);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("queue", queue);
        m.put("rate", wanted.rateJobs() > 0 ? wanted.rateJobs() + "/" + DurationText.format(wanted.ratePer()) : null);
        m.put("concurrency", wanted.concurrency() > 0 ? wanted.concurrency() : null);
        Api.json(ctx, m);
    }

    private static boolean isNone(String v) {
        return v.isBlank() || v.strip().equalsIgnoreCase("none");
    }

    private void events(Exchange ctx) {
        String queue = known(ctx);
        Events ev = client.get().inspector(queue).events();
        String after = ctx.queryParam("after");
        int max = MAX_EVENTS;
        String maxText = ctx.queryParam("max");
        if (maxText != null) {
            try {
                max = Integer.parseInt(maxText.strip());
            } catch (NumberFormatException e) {
                max = -1;
            }
            if (max < 1 || max > MAX_EVENTS) {
                throw ApiException.badRequest("max is '" + maxText + "': it must be a whole number from 1 to " + MAX_EVENTS);
            }
        }
        List<Map<String, Object>> out = new ArrayList<>();
        boolean on = ev.enabled();
        if (on) {
            // Without an id: from the last few minutes on (stream ids start with their time, Redis's clock), so a page
            // opened on a long stream starts near its end, not at its oldest entry.
            String from = after == null || after.isBlank()
                    ? (client.get().serverTime().toEpochMilli() - RECENT.toMillis()) + "-0" : after.strip();
            try {
                for (JobEvent e : ev.read(from, max)) {
                    out.add(event(e));
                }
            } catch (IllegalArgumentException e) {
                throw ApiException.badRequest("after is '" + after + "': use an event id as the answer gives them "
                        + "(e.g. 1700000000000-0)");
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("queue", queue);
        m.put("enabled", on);
        m.put("events", out);
        Api.json(ctx, m);
    }

    private static Map<String, Object> event(JobEvent e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("eventId", e.eventId());
        m.put("type", e.type());
        m.put("jobId", e.jobId());
        m.put("at", text(e.at()));
        m.put("fields", e.fields());
        return m;
    }
}
