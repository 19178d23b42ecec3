package dev.delayq.jackson;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import dev.delayq.PayloadCodec;
import java.io.IOException;

/**
 * Payloads as JSON, written and read by the application's own {@link ObjectMapper} (its modules, naming and date
 * settings apply). Records, generic types and anything else Jackson binds work; Java serialization is never used.
 *
 * <pre>{@code
 * record Reminder(long userId, String text) { }
 * PayloadCodec<Reminder> reminders = JacksonCodec.of(mapper, Reminder.class);
 * queue.enqueue(Job.builder().name("remind").payload(new Reminder(7, "renew"), reminders).delay(Duration.ofDays(1)).build());
 * Worker.builder(queue).handle("remind", reminders, (ctx, r) -> notify(r.userId(), r.text())).build().start();
 *
 * PayloadCodec<List<Reminder>> batches = JacksonCodec.of(mapper, new TypeReference<List<Reminder>>() { });
 * }</pre>
 *
 * <p>A payload that is not valid JSON of the type (malformed, the wrong shape, trailing garbage) fails to decode with
 * an {@link IllegalArgumentException} carrying Jackson's message; a worker sends such a job straight to dead, since
 * retrying cannot fix its bytes. Thread-safe (as the mapper is, once configured).
 *
 * @param <T> the payload type
 */
public final class JacksonCodec<T> implements PayloadCodec<T> {
    private final ObjectWriter writer;
    private final ObjectReader reader;
    private final String type;

    private JacksonCodec(ObjectMapper mapper, JavaType type) {
        this.writer = mapper.writerFor(type);
        this.reader = mapper.readerFor(type).with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        this.type = type.toCanonical();
    }

    /**
     * JSON of {@code type} through {@code mapper}.
     *
     * @throws IllegalArgumentException when either is null
     */
    public static <T> JacksonCodec<T> of(ObjectMapper mapper, Class<T> type) {
        check(mapper, type);
        return new JacksonCodec<>(mapper, mapper.constructType(type));
    }

    /**
     * JSON of a generic type through {@code mapper}, e.g. {@code new TypeReference<List<Order>>() { }}.
     *
     * @throws IllegalArgumentException when either is null
     */
    public static <T> JacksonCodec<T> of(ObjectMapper mapper, TypeReference<T> type) {
        check(mapper, type);
        return new JacksonCodec<>(mapper, mapper.getTypeFactory().constructType(type));
    }

    private static void check(ObjectMapper mapper, Object type) {
        if (mapper == null || type == null) {
            throw new IllegalArgumentException("object mapper and type must not be null");
        }
    }

    /**
     * The JSON text of {@code value}, as UTF-8 bytes.
     *
     * @throws IllegalArgumentException when Jackson cannot write it
     */
    @Override
    public byte[] encode(T value) {
        try {
            return writer.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("payload of type " + type + " cannot be written as JSON: "
                    + e.getOriginalMessage(), e);
        }
    }

    /**
     * The value whose JSON text is {@code payload}.
     *
     * @throws IllegalArgumentException when it is not valid JSON of the type (the message says where and why)
     */
    @Override
    public T decode(byte[] payload) {
        try {
            return reader.readValue(payload);
        } catch (IOException e) {
            String message = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
            throw new IllegalArgumentException("not JSON of type " + type + ": " + message, e);
        }
    }

    @Override
    public String toString() {
        return "JacksonCodec[" + type + "]";
    }
}
