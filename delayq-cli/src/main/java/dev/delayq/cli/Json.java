package dev.delayq.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.delayq.JobInfo;
import dev.delayq.QueueStats;
import java.util.LinkedHashMap;
import java.util.Map;

/** JSON output: one object per line. */
public final class Json {
    public static final ObjectMapper MAPPER = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    private Json() {
    }

    /** The object as one line of JSON. */
    public static String line(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Stats as {@code {queue, scheduled, processing, done, dead, totals: {...}, paused, oldestDueAt, oldestDueLagMillis}}:
     * {@code oldestDueAt} is the due time of the earliest scheduled job (ISO-8601, null when none), and
     * {@code oldestDueLagMillis} how long it has been due by Redis's clock (0 when nothing is due yet), the dashboard's
     * keys; {@code pastRetention}: done and dead jobs kept past their retention, waiting for the workers' purge (null
     * until a worker has purged the queue).
     */
    public static Map<String, Object> stats(QueueStats s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("queue", s.queue());
        m.put("scheduled", s.scheduled());
        m.put("processing", s.processing());
        m.put("done", s.done());
        m.put("dead", s.dead());
        m.put("totals", new LinkedHashMap<>(s.totals()));
        m.put("paused", s.paused());
        m.put("oldestDueAt", instant(s.oldestDueAtMillis()));
        m.put("oldestDueLagMillis", s.oldestDueLagMillis());
        m.put("rate", s.limits().rateJobs() > 0 ? s.limits().rateJobs() + "/" + Durations.format(s.limits().ratePer()) : null);
        m.put("concurrency", s.limits().concurrency() > 0 ? s.limits().concurrency() : null);
        m.put("events", s.eventsCap() > 0 ? s.eventsCap() : null);
        m.put("pastRetention", s.pastRetention() >= 0 ? s.pastRetention() : null);
        return m;
    }

    /**
     * Every field of a job: {@code id, state, attempt} (attempts made so far), {@code maxAttempts} (null when the
     * worker's policy decides), {@code dueAt, leaseUntil, finishedAt} (ISO-8601 or null), {@code token},
     * {@code error} (last error summary or null), {@code payload} (UTF-8 text, or null when not valid UTF-8),
     * {@code payloadBase64}, {@code payloadBytes}; then, with the dashboard's keys, {@code name} (null when none),
     * {@code enqueuedAt} (null when not recorded), {@code stalls} (expired leases), {@code dedupeKey},
     * {@code dedupeHeldUntil} (after the job ended: until when its dedupe key holds, else null) and {@code corrupt}
     * (the record could not be decoded: the payload holds its raw bytes, the state is the index it was found in);
     * {@code priority} (0-9) and {@code progress} (what a running handler last reported, else null).
     */
    public static Map<String, Object> job(JobInfo j) {
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
        m.put("payload", Text.utf8OrNull(j.payload()));
        m.put("payloadBase64", java.util.Base64.getEncoder().encodeToString(j.payload()));
        m.put("payloadBytes", j.payload().length);
        m.put("name", j.name());
        m.put("enqueuedAt", instant(j.enqueuedAtMillis()));
        m.put("stalls", j.stalls());
        m.put("dedupeKey", j.dedupeKey());
        m.put("dedupeHeldUntil", instant(j.dedupeHeldUntilMillis()));
        m.put("corrupt", j.corrupt());
        m.put("priority", j.priority());
        m.put("progress", j.progress());
        return m;
    }

    private static String instant(long millis) {
        return millis >= 0 ? java.time.Instant.ofEpochMilli(millis).toString() : null;
    }
}
