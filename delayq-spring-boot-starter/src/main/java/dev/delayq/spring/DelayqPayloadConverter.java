package dev.delayq.spring;

import java.lang.reflect.Type;

/**
 * Turns payload objects into job payload bytes and back: used by {@link DelayqTemplate} to enqueue objects and by
 * {@link DelayqListener} methods to receive them. The default writes JSON with the application's Jackson
 * {@code ObjectMapper}; {@code String} (UTF-8) and {@code byte[]} always pass as they are. Declare a bean of this
 * type to use another format.
 */
public interface DelayqPayloadConverter {
    /**
     * The payload bytes of {@code payload}.
     *
     * @throws IllegalArgumentException when it cannot be written
     */
    byte[] write(Object payload);

    /**
     * Reads {@code payload} as {@code type} (a class or a parameterized type such as {@code List<Order>}).
     *
     * @throws IllegalArgumentException when the bytes are not a valid {@code type}
     */
    Object read(byte[] payload, Type type);

    /**
     * Whether {@link #read} can produce {@code type} at all; checked once per listener at startup so that a
     * listener that can never receive its payload fails the application's start, not every job.
     */
    boolean canRead(Type type);
}
