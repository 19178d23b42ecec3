package dev.delayq.internal.ops;

import dev.delayq.JobError;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * {@code errors.lua}: a job's error history, which {@code fail.lua} keeps in the errors hash (one field per job that
 * failed): entries newest first, each {@code attempt ":" time ms ":" byte length ":" error summary}.
 */
public final class ErrorHistory {
    private static final ScriptKey[] KEYS = {ScriptKey.ERRORS, ScriptKey.JOBS};

    /** ARGV. */
    enum Arg { ID }

    /** The reply. */
    enum Out { HISTORY }

    static final Protocol PROTOCOL = Protocol.of(Script.ERRORS, KEYS, Arg.values(), Out.values());

    private ErrorHistory() {
    }

    public static CompletableFuture<List<JobError>> call(RedisBackend redis, Keys keys, String id) {
        return Reply.eval(redis, Script.ERRORS, ScriptKey.of(KEYS, keys), Args.utf8(id))
                .thenApply(r -> decode((byte[]) Reply.at(r, Out.HISTORY)));
    }

    /** The entries of a stored history; one that cannot be read ends the list where it stops making sense. */
    static List<JobError> decode(byte[] v) {
        List<JobError> out = new ArrayList<>();
        int pos = 0;
        while (v != null && pos < v.length) {
            int a = indexOf(v, pos);
            int b = a < 0 ? -1 : indexOf(v, a + 1);
            int c = b < 0 ? -1 : indexOf(v, b + 1);
            if (c < 0) {
                break;
            }
            try {
                int attempt = Integer.parseInt(ascii(v, pos, a));
                long at = Long.parseLong(ascii(v, a + 1, b));
                int len = Integer.parseInt(ascii(v, b + 1, c));
                if (len < 0 || c + 1 + len > v.length) {
                    break;
                }
                out.add(new JobError(attempt, Instant.ofEpochMilli(at), new String(v, c + 1, len, StandardCharsets.UTF_8)));
                pos = c + 1 + len;
            } catch (NumberFormatException e) {
                break;
            }
        }
        return out;
    }

    private static int indexOf(byte[] v, int from) {
        for (int i = from; i < v.length; i++) {
            if (v[i] == ':') {
                return i;
            }
        }
        return -1;
    }

    private static String ascii(byte[] v, int from, int to) {
        return new String(v, from, to - from, StandardCharsets.US_ASCII);
    }
}
