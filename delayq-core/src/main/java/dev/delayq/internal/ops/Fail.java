package dev.delayq.internal.ops;

import static dev.delayq.internal.ops.Args.num;
import static dev.delayq.internal.ops.Args.utf8;

import dev.delayq.Bounds;
import dev.delayq.FailResult;
import dev.delayq.Lease;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** {@code fail.lua}: record a failed attempt, fenced by the token: retry after a backoff, or dead. */
public final class Fail {
    private Fail() {
    }

    /**
     * Fails the job of {@code lease} with {@code error} (cut to {@link Bounds#MAX_ERROR_BYTES}); jobs without their own
     * max attempts use {@code defaultMax}.
     */
    public static CompletableFuture<FailResult> call(RedisBackend redis, Keys keys, Lease lease, String error, boolean retryable,
                                                     Duration backoff, int defaultMax) {
        byte[][] k = {keys.leases(), keys.jobs(), keys.due(), keys.dead(), keys.meta(), keys.dedupe(), keys.dedupeHolds(),
                keys.history(), keys.prio(), keys.events(), keys.progress()};
        byte[][] a = {utf8(lease.id()), num(lease.token()), truncate(error == null ? "failed" : error),
                Args.flag(retryable), num(backoff.toMillis()), keys.wakeChannel(), num(defaultMax)};
        return Reply.eval(redis, Script.FAIL, k, a).thenApply(r -> switch ((int) Reply.asLong(r.get(0))) {
            // 3 and 4: this very failure was applied already, by a call whose reply was lost
            case 1, 3 -> new FailResult(FailResult.Outcome.RETRY_SCHEDULED, Reply.asLong(r.get(1)));
            case 2, 4 -> new FailResult(FailResult.Outcome.DEAD, Reply.asLong(r.get(1)));
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
