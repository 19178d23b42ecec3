package dev.delayq.internal.ops;

import dev.delayq.DelayQException;
import java.nio.charset.StandardCharsets;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Runs scripts for the ops and decodes elements of their replies. */
final class Reply {
    private Reply() {
    }

    /** Runs {@code script}; a refusal of its arguments ({@link ReplyCode#BAD_ARGUMENT}) fails the future. */
    static CompletableFuture<List<Object>> eval(RedisBackend redis, Script script, byte[][] keys, byte[]... args) {
        return redis.eval(script, keys, args).thenApply(r -> ReplyCode.checked(r, script.fileName()));
    }

    static long asLong(Object o) {
        if (o instanceof Long l) {
            return l;
        }
        if (o instanceof byte[] b) {
            return Long.parseLong(new String(b, StandardCharsets.US_ASCII));
        }
        throw new DelayQException("unexpected script reply element " + o);
    }

    static String str(Object o) {
        return o == null ? null : new String((byte[]) o, StandardCharsets.UTF_8);
    }

    static int asInt(Object o) {
        return (int) asLong(o);
    }

    /** The reply's field {@code field} (its position is the constant's in the script's declared reply). */
    static Object at(List<Object> reply, Enum<?> field) {
        return reply.get(field.ordinal());
    }

    static long longAt(List<Object> reply, Enum<?> field) {
        return asLong(reply.get(field.ordinal()));
    }

    /** Field {@code field} of item {@code i} of the items that follow the {@code head} fixed fields, {@code width} each. */
    static Object item(List<Object> reply, int head, int width, int i, Enum<?> field) {
        return reply.get(head + width * i + field.ordinal());
    }

    static ReplyCode code(List<Object> reply) {
        return ReplyCode.of(asLong(reply.get(0)));
    }
}
