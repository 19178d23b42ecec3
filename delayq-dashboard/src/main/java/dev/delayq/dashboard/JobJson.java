package dev.delayq.dashboard;

import dev.delayq.JobInfo;
import dev.delayq.QueueStats;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The JSON shapes of the API. A job has the keys of {@code delayq job --json} (same names, same meaning), except
 * that {@code payload} and {@code payloadBase64} hold at most {@link Dashboard#PAYLOAD_PREVIEW_BYTES} bytes:
 * {@code payloadBytes} is the full size and {@code payloadTruncated} says whether the preview is shorter. Then the
 * rest of {@link JobInfo}: {@code name}, {@code enqueuedAt}, {@code stalls}, {@code dedupeKey},
 * {@code dedupeHeldUntil}, {@code corrupt}, {@code priority} (0-9), {@code progress} (what a running handler last
 * reported, else null).
 */
final class JobJson {
    private JobJson() {
    }

    /** A job with its payload previewed. */
    static Map<String, Object> job(JobInfo j, int previewBytes) {
        byte[] payload = j.payload();
        boolean utf8 = utf8OrNull(payload) != null;
        int cut = Math.min(payload.length, previewBytes);
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
        m.put("payloadBytes", payload.length);
        m.put("payloadPreviewBytes", preview.length);
        m.put("payloadTruncated", preview.length < payload.length);
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

    /**
     * A queue's counts: {@code name, scheduled, processing, done, dead, paused, oldestDueAt} (the earliest due time of
     * a scheduled job, or null), {@code oldestDueLagMillis} (how long it has been due, on Redis's clock; 0 when nothing
     * is due yet), {@code totals} and {@code pastRetention} (done and dead jobs kept past their retention, waiting for
     * the workers' purge; null until a worker has purged the queue).
     */
    static Map<String, Object> queue(QueueStats s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", s.queue());
        m.put("scheduled", s.scheduled());
        m.put("processing", s.processing());
        m.put("done", s.done());
        m.put("dead", s.dead());
        m.put("paused", s.paused());
        long oldest = s.oldestDueAtMillis();
        m.put("oldestDueAt", instant(oldest));
        m.put("oldestDueLagMillis", s.oldestDueLagMillis());
        m.put("totals", new LinkedHashMap<>(s.totals()));
        m.put("pastRetention", s.pastRetention() >= 0 ? s.pastRetention() : null);
        return m;
    }

    private static String instant(long millis) {
        return millis >= 0 ? Instant.ofEpochMilli(millis).toString() : null;
    }

    /** The bytes as text, or {@code null} when they are not valid UTF-8. */
    static String utf8OrNull(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
