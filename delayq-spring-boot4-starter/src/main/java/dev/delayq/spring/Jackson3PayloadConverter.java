package dev.delayq.spring;

import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectMapper;

/**
 * The default {@link DelayqPayloadConverter} on Spring Boot 4: JSON through the application's Jackson 3
 * {@link ObjectMapper} (Boot's {@code JsonMapper}, so its modules and settings apply); {@code String} payloads are
 * UTF-8 text and {@code byte[]} payloads raw bytes, never JSON-quoted. The JSON is the same as Jackson 2's
 * ({@link JacksonPayloadConverter}): jobs enqueued by an application on Boot 3 are read by one on Boot 4.
 */
public final class Jackson3PayloadConverter implements DelayqPayloadConverter {
    private final ObjectMapper mapper;

    /** Writes and reads JSON with {@code mapper}. */
    public Jackson3PayloadConverter(ObjectMapper mapper) {
        if (mapper == null) {
            throw new IllegalArgumentException("object mapper must not be null");
        }
        this.mapper = mapper;
    }

    @Override
    public byte[] write(Object payload) {
        if (payload instanceof byte[] bytes) {
            return bytes;
        }
        if (payload instanceof String s) {
            return s.getBytes(StandardCharsets.UTF_8);
        }
        try {
            return mapper.writeValueAsBytes(payload);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("payload of type " + payload.getClass().getName()
                    + " cannot be written as JSON: " + e.getOriginalMessage(), e);
        }
    }

    @Override
    public Object read(byte[] payload, Type type) {
        if (type == byte[].class) {
            return payload;
        }
        if (type == String.class) {
            return new String(payload, StandardCharsets.UTF_8);
        }
        JavaType javaType = mapper.getTypeFactory().constructType(type);
        try {
            return mapper.readValue(payload, javaType);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("payload is not a valid " + javaType.toCanonical() + ": "
                    + e.getOriginalMessage(), e);
        }
    }

    @Override
    public boolean canRead(Type type) {
        return true;
    }
}
