package dev.delayq.spring;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;

/**
 * The default {@link DelayqPayloadConverter}: JSON through an {@link ObjectMapper} (the application's own, so its
 * modules and settings apply); {@code String} payloads are UTF-8 text and {@code byte[]} payloads raw bytes, never
 * JSON-quoted.
 */
public final class JacksonPayloadConverter implements DelayqPayloadConverter {
    private final ObjectMapper mapper;

    /** Writes and reads JSON with {@code mapper}. */
    public JacksonPayloadConverter(ObjectMapper mapper) {
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
        } catch (JsonProcessingException e) {
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
        JavaType javaType = mapper.constructType(type);
        try {
            return mapper.readValue(payload, javaType);
        } catch (IOException e) {
            throw new IllegalArgumentException("payload is not a valid " + javaType.toCanonical() + ": "
                    + (e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage()), e);
        }
    }

    @Override
    public boolean canRead(Type type) {
        return true;
    }
}
