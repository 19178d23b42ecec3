package dev.delayq.internal.ops;

import static dev.delayq.internal.ops.Args.num;
import static dev.delayq.internal.ops.Args.utf8;
import static dev.delayq.internal.ops.ScriptKey.DEAD;
import static dev.delayq.internal.ops.ScriptKey.DEDUPE;
import static dev.delayq.internal.ops.ScriptKey.DEDUPE_HOLDS;
import static dev.delayq.internal.ops.ScriptKey.DUE;
import static dev.delayq.internal.ops.ScriptKey.EVENTS;
import static dev.delayq.internal.ops.ScriptKey.HISTORY;
import static dev.delayq.internal.ops.ScriptKey.JOBS;
import static dev.delayq.internal.ops.ScriptKey.LEASES;
import static dev.delayq.internal.ops.ScriptKey.META;
import static dev.delayq.internal.ops.ScriptKey.PRIORITY_DUE;
import static dev.delayq.internal.ops.ScriptKey.PROGRESS;
import static dev.delayq.internal.ops.ScriptKey.RETRYING;

import dev.delayq.Bounds;
import dev.delayq.FailResult;
import dev.delayq.Lease;
import dev.delayq.internal.Keys;
import dev.delayq.internal.base.ScriptLimits;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** {@code fail.lua}: record a failed attempt, fenced by the token: retry after a backoff, or dead. */
public final class Fail {
    private static final ScriptKey[] KEYS = {LEASES, JOBS, DUE, DEAD, META, DEDUPE, DEDUPE_HOLDS, HISTORY, PRIORITY_DUE, EVENTS,
        PROGRESS, RETRYING, ScriptKey.ERRORS, ScriptKey.DEPS, ScriptKey.WAITING, ScriptKey.CHILDREN};

    /** ARGV, in order. */
    enum Arg { ID, TOKEN, ERROR, RETRYABLE, BACKOFF_MS, WAKE_CHANNEL, DEFAULT_MAX_ATTEMPTS }

    /** The reply. */
    enum Out { CODE, AT }

    static final Protocol PROTOCOL = Protocol.of(Script.FAIL, KEYS, Arg.values(), Out.values())
            .bound(Arg.TOKEN, 0, 1L << 53).bound(Arg.BACKOFF_MS, 0, 1L << 50).bound(Arg.DEFAULT_MAX_ATTEMPTS, 1,
                    ScriptLimits.MAX_ATTEMPTS);
    private static final int ARGS = PROTOCOL.argCount();

    private Fail() {
    }

    /**
     * Fails the job of {@code lease} with {@code error} (cut to {@link Bounds#MAX_ERROR_BYTES}); jobs without their own
     * max attempts use {@code defaultMax}.
     */
    public static CompletableFuture<FailResult> call(RedisBackend redis, Keys keys, Lease lease, String error, boolean retryable,
                                                     Duration backoff, int defaultMax) {
        byte[][] k = ScriptKey.of(KEYS, keys);
        byte[][] a = new byte[ARGS][];
        a[Arg.ID.ordinal()] = utf8(lease.id());
        a[Arg.TOKEN.ordinal()] = num(lease.token());
        a[Arg.ERROR.ordinal()] = truncate(error == null ? "failed" : error);
        a[Arg.RETRYABLE.ordinal()] = Args.flag(retryable);
        a[Arg.BACKOFF_MS.ordinal()] = num(backoff.toMillis());
        a[Arg.WAKE_CHANNEL.ordinal()] = keys.wakeChannel();
        a[Arg.DEFAULT_MAX_ATTEMPTS.ordinal()] = num(defaultMax);
        return Reply.eval(redis, Script.FAIL, k, a).thenApply(r -> switch ((int) Reply.longAt(r, Out.CODE)) {
            // 3 and 4: this very failure was applied already, by a call whose reply was lost
            case 1, 3 -> new FailResult(FailResult.Outcome.RETRY_SCHEDULED, Reply.longAt(r, Out.AT));
            case 2, 4 -> new FailResult(FailResult.Outcome.DEAD, Reply.longAt(r, Out.AT));
            default -> new FailResult(Reply.code(r) == ReplyCode.NOT_FOUND ? FailResult.Outcome.NOT_FOUND : FailResult.Outcome.STALE, 0);
        });
    }

    /** The error as UTF-8, cut to {@link Bounds#MAX_ERROR_BYTES} without splitting a character. */
    static byte[] truncate(String error) {
        byte[] b = utf8(error);
        if (b.length <= Bounds.MAX_ERROR_BYTES) {
            return b;
        }
        int end = Bounds.MAX_ERROR_BYTES;
        while (end > 0 && (b[end] & 0xC0) == 0x80) {
            end--;
        }
        return java.util.Arrays.copyOf(b, end);
    }
}
