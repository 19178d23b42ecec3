package dev.delayq;

import java.nio.charset.StandardCharsets;

/**
 * Turns typed payloads into bytes and back, e.g. JSON with Jackson ({@code dev.delayq.jackson.JacksonCodec} in the
 * optional {@code delayq-jackson} module). Payloads are bytes on Redis; delayq never uses Java serialization.
 *
 * <pre>{@code
 * PayloadCodec<Order> orders = JacksonCodec.of(mapper, Order.class);
 * queue.enqueue(Job.builder().name("timeout").payload(order, orders).delay(Duration.ofMinutes(30)).build());
 * Worker.builder(queue).handle("timeout", orders, (ctx, order) -> cancelIfUnpaid(order)).build().start();
 * }</pre>
 *
 * @param <T> the payload type
 */
public interface PayloadCodec<T> {
    /** The bytes stored for {@code value}. */
    byte[] encode(T value);

    /**
     * The value stored as {@code payload}.
     *
     * @throws RuntimeException when the bytes are not a valid {@code T}; a worker sends such a job straight to dead
     *                          (retrying cannot fix its payload)
     */
    T decode(byte[] payload);

    /** Text as UTF-8. */
    static PayloadCodec<String> utf8() {
        return new PayloadCodec<>() {
            @Override
            public byte[] encode(String value) {
                return value.getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public String decode(byte[] payload) {
                return new String(payload, StandardCharsets.UTF_8);
            }
        };
    }
}
