package dev.delayq.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import dev.delayq.DedupeMode;
import dev.delayq.Job;
import dev.delayq.internal.present.DurationText;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * One line of {@code enqueue --jsonl}: a JSON object with the keys {@value #FIELDS}, read into a {@link Job}. A
 * payload that is a string is stored as its UTF-8 text; one that is an object, an array, a number or a boolean is
 * stored as its JSON text, compact ({@code {"payload": {"a": 1}}} stores {@code {"a":1}}; numbers keep their digits).
 * A key whose value is {@code null} counts as not given.
 */
final class JsonlJob {
    static final String FIELDS = "id, name, payload, delay, at, maxAttempts, priority, group, timeout, dedupeKey, dedupeTtl, "
            + "dedupeMode";
    // Floats as BigDecimal: a payload number is stored with the digits it was written with, never rounded to a double.
    private static final ObjectReader READER = Json.MAPPER.reader()
            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .with(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .without(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
            .with(StreamReadFeature.STRICT_DUPLICATE_DETECTION);

    private final int maxPayloadBytes;
    private final String limitHint;

    /**
     * @param maxPayloadBytes the largest payload accepted
     * @param limitHint       how a message about the payload limit ends (the limit and how to raise it)
     */
    JsonlJob(int maxPayloadBytes, String limitHint) {
        this.maxPayloadBytes = maxPayloadBytes;
        this.limitHint = limitHint;
    }

    /** A line read: the job, or why it is bad; {@code requested} is the id the line asked for, when known. */
    record Parsed(Job job, String requested, String error) {
    }

    /** Reads one non-blank line; every problem becomes the result's error, never an exception. */
    Parsed parse(String text) {
        JsonNode node;
        try {
            node = READER.readTree(text);
        } catch (JsonProcessingException e) {
            return new Parsed(null, null, "invalid JSON: " + e.getOriginalMessage());
        }
        JsonNode id = node == null ? null : node.get("id");
        String requested = id != null && id.isTextual() ? id.textValue() : null;
        try {
            Job job = job(node);
            return new Parsed(job, job.id(), null);
        } catch (IllegalArgumentException e) {
            return new Parsed(null, requested, e.getMessage());
        }
    }

    private Job job(JsonNode node) {
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException("expected a JSON object with the keys " + FIELDS);
        }
        Job.Builder b = Job.builder();
        String dedupeKey = null;
        Duration dedupeTtl = null;
        DedupeMode dedupeMode = null;
        boolean timed = false;
        for (Map.Entry<String, JsonNode> f : node.properties()) {
            JsonNode v = f.getValue();
            if (v.isNull()) {
                continue; // null means "not given"
            }
            switch (f.getKey()) {
                case "id" -> b.id(text(f.getKey(), v));
                case "name" -> b.name(text(f.getKey(), v));
                case "payload" -> b.payload(payload(v));
                case "delay", "at" -> {
                    if (timed) {
                        throw new IllegalArgumentException("give either delay or at, not both");
                    }
                    timed = true;
                    if (f.getKey().equals("delay")) {
                        b.delay(duration(f.getKey(), v));
                    } else {
                        try {
                            b.runAt(DurationText.parseInstant(text(f.getKey(), v)));
                        } catch (IllegalArgumentException e) {
                            throw new IllegalArgumentException("at: " + e.getMessage());
                        }
                    }
                }
                case "maxAttempts" -> {
                    if (!v.isIntegralNumber() || !v.canConvertToInt()) {
                        throw new IllegalArgumentException("maxAttempts must be a whole number, got " + v);
                    }
                    b.maxAttempts(v.intValue());
                }
                case "priority" -> {
                    if (!v.isIntegralNumber() || !v.canConvertToInt()) {
                        throw new IllegalArgumentException("priority must be a whole number from 0 to 9, got " + v);
                    }
                    b.priority(v.intValue());
                }
                case "group" -> b.group(text(f.getKey(), v));
                case "timeout" -> b.timeout(duration(f.getKey(), v));
                case "dedupeKey" -> dedupeKey = text(f.getKey(), v);
                case "dedupeTtl" -> dedupeTtl = duration(f.getKey(), v);
                case "dedupeMode" -> dedupeMode = EnqueueCommand.DedupeModes.parse(text(f.getKey(), v), "dedupeMode");
                default -> throw new IllegalArgumentException("unknown key '" + f.getKey() + "': use " + FIELDS);
            }
        }
        boolean debounce = dedupeMode == DedupeMode.DEBOUNCE;
        if (dedupeKey == null && (dedupeTtl != null || dedupeMode != null)) {
            throw new IllegalArgumentException((dedupeTtl != null ? "dedupeTtl" : "dedupeMode") + " needs a dedupeKey");
        }
        if (dedupeKey != null && dedupeTtl == null && !debounce) {
            throw new IllegalArgumentException("dedupeKey needs a dedupeTtl");
        }
        if (dedupeKey != null) {
            b.dedupe(dedupeKey, dedupeTtl).dedupeMode(debounce ? DedupeMode.DEBOUNCE : DedupeMode.THROTTLE);
        }
        return b.build();
    }

    /** A string's UTF-8 bytes; any other JSON value's compact JSON text. */
    private byte[] payload(JsonNode v) {
        byte[] payload = v.isTextual() ? v.textValue().getBytes(StandardCharsets.UTF_8)
                : Json.line(v).getBytes(StandardCharsets.UTF_8);
        if (payload.length > maxPayloadBytes) {
            throw new IllegalArgumentException("payload is " + payload.length + " bytes: " + limitHint);
        }
        return payload;
    }

    private static String text(String key, JsonNode v) {
        if (!v.isTextual()) {
            throw new IllegalArgumentException(key + " must be a string, got " + v.getNodeType().name().toLowerCase(Locale.ROOT));
        }
        return v.textValue();
    }

    private static Duration duration(String key, JsonNode v) {
        try {
            return DurationText.parse(text(key, v));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + ": " + e.getMessage());
        }
    }
}
