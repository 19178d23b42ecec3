package dev.delayq.spring;

import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;

/** Payloads as {@code String} (UTF-8) and {@code byte[]} only: the converter when Jackson is not on the class path. */
final class PlainPayloadConverter implements DelayqPayloadConverter {
    @Override
    public byte[] write(Object payload) {
        if (payload instanceof byte[] bytes) {
            return bytes;
        }
        if (payload instanceof String s) {
            return s.getBytes(StandardCharsets.UTF_8);
        }
        throw new IllegalArgumentException("payload of type " + payload.getClass().getName() + " needs Jackson "
                + "(jackson-databind) on the class path to be written as JSON; pass a String or byte[] instead");
    }

    @Override
    public Object read(byte[] payload, Type type) {
        if (type == byte[].class) {
            return payload;
        }
        if (type == String.class) {
            return new String(payload, StandardCharsets.UTF_8);
        }
        throw new IllegalArgumentException("payload type " + type.getTypeName() + " needs Jackson on the class path");
    }

    @Override
    public boolean canRead(Type type) {
        return type == byte[].class || type == String.class;
    }
}
