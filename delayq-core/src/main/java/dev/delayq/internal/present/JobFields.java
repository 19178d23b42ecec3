package dev.delayq.internal.present;

import dev.delayq.JobError;
import dev.delayq.JobInfo;
import dev.delayq.QueueStats;
import dev.delayq.WorkerInfo;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one JSON shape of a job and of a queue's counts, for every surface that shows them: {@code delayq job --json},
 * {@code list --json}, {@code stats --json}, {@code queues --json} and the dashboard's API. Maps of plain values
 * (strings, numbers, booleans, nulls, nested maps) in a fixed key order, so that any JSON writer prints them alike.
 *
 * <p>Keys are added, never renamed: scripts read them. Where the command line and the dashboard once named a value
 * apart, both names stay (a queue's name is {@code queue}, and {@code name} as well).
 */
public final class JobFields {
    /** No preview limit: the whole payload. */
    public static final int WHOLE_PAYLOAD = Integer.MAX_VALUE;

    private JobFields() {
    }

    /**
     * Every field of a job: {@code id, state, attempt} (attempts made so far), {@code maxAttempts} (null when the
     * worker's policy decides), {@code dueAt, leaseUntil, finishedAt} (ISO-8601 or null), {@code token},
     * {@code error} (last error summary or null), {@code payload} (UTF-8 text, or null when not valid UTF-8),
     * {@code payloadBase64}, {@code payloadBytes} (the full size), {@code payloadPreviewBytes} and
     * {@code payloadTruncated} (whether {@code payload} and {@code payloadBase64} hold less than the whole payload:
     * at most {@code previewBytes}, never splitting a character), {@code name} (null when none), {@code enqueuedAt}
     * (null when not recorded), {@code stalls} (expired leases), {@code dedupeKey}, {@code dedupeHeldUntil} (after the
     * job ended: until when its dedupe key holds, else null), {@code corrupt} (the record could not be decoded: the
     * payload holds its raw bytes, the state is the index it was found in), {@code priority} (0-9),
     * {@code progress} (what a running handler last reported, else null), {@code allowed} (the operations its
     * state allows, {@link JobActions}: {@code ["cancel", "delete", "reschedule", "run-now"]} for a scheduled job),
     * {@code result} only for a done job whose handler left one (UTF-8 text, or when the bytes are not valid UTF-8
     * their base64 with {@code resultEncoding: "base64"}), and only for a job enqueued with a W3C trace context: {@code traceparent} and, when it has one,
     * {@code tracestate} (a job without pays for no keys it does not have).
     *
     * @param previewBytes the most payload bytes to include; {@link #WHOLE_PAYLOAD} for all of it
     */
    public static Map<String, Object> job(JobInfo j, int previewBytes) {
        return job(j, previewBytes, null);
    }

    /**
     * {@link #job(JobInfo, int)} with the job's error history ({@code QueueInspector.errors}) under {@code errors}:
     * a list, newest first, of {@code {"attempt", "at", "error"}} ({@code at} an ISO-8601 instant); left out when null.
     */
    public static Map<String, Object> job(JobInfo j, int previewBytes, List<JobError> errors) {
        Map<String, Object> m = jobFields(j, previewBytes);
        if (errors != null) {
            m.put("errors", errors.stream().map(e -> {
                Map<String, Object> x = new LinkedHashMap<>();
                x.put("attempt", e.attempt());
                x.put("at", e.at().toString());
                x.put("error", e.error());
                return x;
            }).toList());
        }
        return m;
    }

    private static Map<String, Object> jobFields(JobInfo j, int previewBytes) {
        // A payload Redis already cut to a preview may end inside a character: judge UTF-8 without that tail.
        byte[] payload = j.payloadTruncated() ? withoutPartialCharacter(j.payload()) : j.payload();
        boolean utf8 = utf8OrNull(payload) != null;
        if (!utf8) {
            payload = j.payload();
        }
        int cut = Math.min(payload.length, Math.max(0, previewBytes));
        if (utf8 && cut < payload.length) {
            while (cut > 0 && (payload[cut] & 0xC0) == 0x80) {
                cut--; // never split a character: back off to the first byte of the one that does not fit
            }
        }
        byte[] preview = cut == payload.length ? payload : Arrays.copyOf(payload, cut);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", j.id());
        m.put("state", j.state().label());
        m.put("attempt", j.attempt());
        m.put("maxAttempts", j.maxAttempts() > 0 ? j.maxAttempts() : null);
        m.put("dueAt", j.dueAt() != null ? j.dueAt().toString() : null);
        m.put("leaseUntil", j.leaseUntil() != null ? j.leaseUntil().toString() : null);
        m.put("finishedAt", j.finishedAt() != null ? j.finishedAt().toString() : null);
        m.put("token", j.token());
        m.put("error", j.lastError());
        m.put("payload", utf8 ? new String(preview, StandardCharsets.UTF_8) : null);
        m.put("payloadBase64", Base64.getEncoder().encodeToString(preview));
        m.put("payloadBytes", Math.toIntExact(j.payloadBytes()));
        m.put("payloadPreviewBytes", preview.length);
        m.put("payloadTruncated", preview.length < j.payloadBytes());
        m.put("name", j.name());
        m.put("enqueuedAt", instant(j.enqueuedAtMillis()));
        m.put("stalls", j.stalls());
        m.put("dedupeKey", j.dedupeKey());
        m.put("dedupeHeldUntil", instant(j.dedupeHeldUntilMillis()));
        m.put("corrupt", j.corrupt());
        m.put("priority", j.priority());
        m.put("progress", j.progress());
        m.put("allowed", allowed(j));
        if (j.group() != null) {
            m.put("group", j.group());
        }
        if (j.result() != null) {
            String text = utf8OrNull(j.result());
            m.put("result", text != null ? text : Base64.getEncoder().encodeToString(j.result()));
            if (text == null) {
                m.put("resultEncoding", "base64");
            }
        }
        if (j.traceparent() != null) {
            m.put("traceparent", j.traceparent());
            if (j.tracestate() != null) {
                m.put("tracestate", j.tracestate());
            }
        }
        return m;
    }

    /**
     * Adds a job's flow links (docs/flows.md) to its fields {@code m}: {@code parents} ({@code {"done", "dead",
     * "pending"}}, its parents by outcome, and {@code onParentDead}) while it waits for them, {@code children}
     * ({@code {"waiting"}}: the jobs waiting for it) when any does; nothing for a job outside flows.
     */
    public static Map<String, Object> links(Map<String, Object> m, dev.delayq.FlowLinks links) {
        if (links != null && links.waiting()) {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("done", links.doneParents());
            p.put("dead", links.deadParents());
            p.put("pending", links.pendingParents());
            p.put("onParentDead", links.onParentDead().name().toLowerCase(java.util.Locale.ROOT));
            m.put("parents", p);
        }
        if (links != null && links.waitingChildren() > 0) {
            m.put("children", Map.of("waiting", links.waitingChildren()));
        }
        return m;
    }

    /**
     * Adds the jobs behind a job's flow links ({@code QueueInspector.flowIds}) to its fields {@code m} (after
     * {@link #links}): {@code parents.jobs} and {@code children.jobs}, {@code [{"id", "state"}, ...]} ({@code state}
     * null for a job that is gone), and {@code children.more}: the waiting children not listed.
     */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> flowIds(Map<String, Object> m, dev.delayq.FlowIds ids) {
        if (ids == null) {
            return m;
        }
        if (!ids.parents().isEmpty()) {
            Map<String, Object> p = m.get("parents") instanceof Map<?, ?> old
                    ? new LinkedHashMap<>((Map<String, Object>) old) : new LinkedHashMap<>();
            p.put("jobs", linked(ids.parents()));
            m.put("parents", p);
        }
        if (ids.waitingChildren() > 0) {
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("waiting", ids.waitingChildren());
            c.put("jobs", linked(ids.children()));
            c.put("more", Math.max(0, ids.waitingChildren() - ids.children().size()));
            m.put("children", c);
        }
        return m;
    }

    private static List<Map<String, Object>> linked(List<dev.delayq.FlowIds.Linked> jobs) {
        List<Map<String, Object>> out = new java.util.ArrayList<>(jobs.size());
        for (dev.delayq.FlowIds.Linked l : jobs) {
            Map<String, Object> j = new LinkedHashMap<>();
            j.put("id", l.id());
            j.put("state", l.state() != null ? l.state().label() : null);
            out.add(j);
        }
        return out;
    }

    /**
     * A queue's groups as {@code delayq stats Q --groups --json} shows them: {@code queue}, {@code groups} (how many
     * have scheduled jobs or leases), {@code groupRate} and {@code groupConcurrency} (every group's limits, null when
     * none) and {@code top}: {@code [{"group", "scheduled", "running", "rate", "concurrency", "weight"}, ...]}, the
     * largest backlogs first.
     */
    public static Map<String, Object> groups(String queue, dev.delayq.GroupStats g) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("queue", queue);
        m.put("groups", g.groups());
        m.put("groupRate", rate(g.limits()));
        m.put("groupConcurrency", g.limits().concurrency() > 0 ? g.limits().concurrency() : null);
        List<Object> rows = new java.util.ArrayList<>();
        for (dev.delayq.GroupStats.Group x : g.top()) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("group", x.group());
            r.put("scheduled", x.scheduled());
            r.put("running", x.running());
            r.put("rate", rate(x.limits()));
            r.put("concurrency", x.limits().concurrency() > 0 ? x.limits().concurrency() : null);
            r.put("weight", x.weight());
            rows.add(r);
        }
        m.put("top", rows);
        return m;
    }

    private static String rate(dev.delayq.Limits l) {
        return l.rateJobs() > 0 ? l.rateJobs() + "/" + DurationText.format(l.ratePer()) : null;
    }

    /**
     * A queue's counts: {@code queue} (its name; also as {@code name}, the dashboard's first key), {@code scheduled,
     * processing, done, dead}, {@code waiting} (jobs waiting for their parents, docs/flows.md: not in {@code scheduled},
     * which counts the jobs in the due sets), {@code totals} (running totals), {@code paused}, {@code oldestDueAt} (the due time of the
     * earliest scheduled job, ISO-8601, null when none), {@code oldestDueLagMillis} (how long it has been due on
     * Redis's clock, 0 when nothing is due yet), {@code rate} and {@code concurrency} (the flow limits, null when none;
     * the rate as {@code N/DUR}), {@code events} (the event stream's cap, null when off) and {@code pastRetention}
     * (done and dead jobs kept past their retention, waiting for the workers' purge; null until a worker has purged
     * the queue), {@code ready}, {@code delayed} and {@code retrying} (the scheduled jobs by state: due now, due later,
     * failed and waiting for a retry still to come; their sum is {@code scheduled}; left out when not counted).
     */
    public static Map<String, Object> stats(QueueStats s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("queue", s.queue());
        m.put("name", s.queue());
        m.put("scheduled", s.scheduled());
        m.put("processing", s.processing());
        m.put("done", s.done());
        m.put("dead", s.dead());
        m.put("waiting", s.waiting());
        m.put("totals", new LinkedHashMap<>(s.totals()));
        m.put("paused", s.paused());
        m.put("oldestDueAt", instant(s.oldestDueAtMillis()));
        m.put("oldestDueLagMillis", s.oldestDueLagMillis());
        m.put("rate", s.limits().rateJobs() > 0
                ? s.limits().rateJobs() + "/" + DurationText.format(s.limits().ratePer()) : null);
        m.put("concurrency", s.limits().concurrency() > 0 ? s.limits().concurrency() : null);
        m.put("events", s.eventsCap() > 0 ? s.eventsCap() : null);
        m.put("pastRetention", s.pastRetention() >= 0 ? s.pastRetention() : null);
        if (s.ready() >= 0) {
            m.put("ready", s.ready());
            m.put("delayed", s.delayed());
            m.put("retrying", s.retrying());
            m.put("groups", s.groups()); // read with the split: stats as Redis gave them
        }
        return m;
    }

    /**
     * A queue's counts ({@link #stats(QueueStats)}) and {@code workers}: its live workers (their heartbeats,
     * {@code QueueInspector.workers()}).
     */
    public static Map<String, Object> stats(QueueStats s, int workers) {
        Map<String, Object> m = stats(s);
        m.put("workers", workers);
        return m;
    }

    /**
     * Whether a queue is left unattended: jobs are due now (by Redis's clock when its counts were read) and no live
     * worker runs them. Shown as {@code no workers} in text, as {@code "workers": 0} in JSON.
     */
    public static boolean unattended(QueueStats s, int workers) {
        return workers == 0 && s.oldestDueAtMillis() >= 0 && s.oldestDueAtMillis() <= s.serverTimeMillis();
    }

    /**
     * A live worker: {@code id, name, host, pid, queues, concurrency}, {@code running} (the jobs it runs: {@code id}
     * and {@code startedAt} each), {@code startedAt}, {@code lastBeat} (ISO-8601) and {@code version}.
     */
    public static Map<String, Object> worker(WorkerInfo w) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", w.id());
        m.put("name", w.name());
        m.put("host", w.host());
        m.put("pid", w.pid());
        m.put("queues", w.queues());
        m.put("concurrency", w.concurrency());
        java.util.List<Map<String, Object>> running = new java.util.ArrayList<>(w.running().size());
        for (WorkerInfo.RunningJob r : w.running()) {
            Map<String, Object> job = new LinkedHashMap<>();
            job.put("id", r.id());
            job.put("startedAt", r.startedAt().toString());
            running.add(job);
        }
        m.put("running", running);
        m.put("startedAt", w.startedAt().toString());
        m.put("lastBeat", w.lastBeat().toString());
        m.put("version", w.version());
        return m;
    }

    /**
     * The operations the job's state allows ({@link JobActions}); a record that cannot be decoded can only be deleted,
     * and not while a worker holds it.
     */
    private static java.util.List<String> allowed(JobInfo j) {
        if (j.corrupt()) {
            return JobActions.DELETE.allows(j.state()) ? java.util.List.of(JobActions.DELETE.label()) : java.util.List.of();
        }
        return JobActions.allowedIn(j.state());
    }

    /** Epoch milliseconds as ISO-8601, or {@code null} for a negative value (not recorded). */
    public static String instant(long millis) {
        return millis >= 0 ? Instant.ofEpochMilli(millis).toString() : null;
    }

    /** The bytes as text, or {@code null} when they are not valid UTF-8. */
    /** {@code bytes} without a UTF-8 character cut off at its end (its lead byte and the continuation bytes after it). */
    static byte[] withoutPartialCharacter(byte[] bytes) {
        int i = bytes.length - 1;
        while (i >= 0 && bytes.length - i <= 4 && (bytes[i] & 0xC0) == 0x80) {
            i--;
        }
        if (i < 0 || bytes.length - i > 4) {
            return bytes;
        }
        int lead = bytes[i] & 0xFF;
        int size = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
        return i + size > bytes.length ? Arrays.copyOf(bytes, i) : bytes;
    }

    public static String utf8OrNull(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
