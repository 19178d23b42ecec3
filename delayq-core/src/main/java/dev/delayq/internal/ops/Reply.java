package dev.delayq.internal.ops;

import dev.delayq.DelayQException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Decodes elements of script replies. */
final class Reply {
    private Reply() {
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

    static ReplyCode code(List<Object> reply) {
        return ReplyCode.of(asLong(reply.get(0)));
    }
}
