package dev.delayq.internal.redis;

import dev.delayq.DelayQConnectionException;
import dev.delayq.DelayQException;
import dev.delayq.DelayQTimeoutException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

/**
 * Maps Lettuce's (and the JDK's concurrency) failures onto delayq's exception family, in one place: a timeout is a
 * {@link DelayQTimeoutException}; a server that cannot be reached, refuses the credentials, or is restarting,
 * failing over or resharding is a {@link DelayQConnectionException} (retry later); anything else is a
 * {@link DelayQException} naming the operation and the server.
 */
public final class RedisErrors {
    /** Lettuce's messages for commands cancelled because their connection dropped while they were in flight. */
    private static final Pattern IN_FLIGHT_CUT = Pattern.compile("Connection (disconnected|closed)");

    /** Error replies of a server that is loading, failing over or resharding: retry later. */
    private static final Pattern TRANSIENT = Pattern.compile("(LOADING|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|READONLY|BUSY) ");

    private RedisErrors() {
    }

    /** The delayq exception for {@code e}, raised while doing {@code what} on {@code server}. */
    /**
     * {@code future} with its failure translated as {@link RedisBackend#await} translates it (connection, timeout,
     * script errors), for a caller that waits for many at once.
     */
    public static <T> java.util.concurrent.CompletableFuture<T> translated(java.util.concurrent.CompletableFuture<T> future,
                                                                          String what, RedisBackend redis) {
        return future.handle((v, e) -> {
            if (e != null) {
                throw translate(e, what, redis.server(), redis.timeout());
            }
            return v;
        });
    }

    public static RuntimeException translate(Throwable e, String what, String server, Duration timeout) {
        Throwable c = unwrap(e);
        if (c instanceof DelayQException de) {
            return de;
        }
        if (c instanceof IllegalArgumentException iae) {
            return iae; // input errors found while decoding a reply keep their type and message
        }
        if (c instanceof RedisCommandTimeoutException || c instanceof TimeoutException) {
            return new DelayQTimeoutException(what + ": Redis at " + server + " did not answer within "
                    + timeout.toMillis() + " ms", c);
        }
        if (c instanceof RedisCommandInterruptedException) {
            return new DelayQException(what + " was interrupted", c);
        }
        String msg = c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage();
        if (c instanceof IOException || (c.getClass() == RedisException.class && IN_FLIGHT_CUT.matcher(msg).matches())) {
            // A connection reset or closed under a command in flight: Lettuce cancels it and does not send it again
            // (Connector sets REJECT_COMMANDS), so the caller learns the outcome is unknown and decides.
            return new DelayQConnectionException("connection to Redis at " + server + " broke during " + what + ": " + msg
                    + " (the command may or may not have run)", c);
        }
        if (c instanceof RedisCommandExecutionException && TRANSIENT.matcher(msg).lookingAt()) {
            return new DelayQConnectionException("Redis at " + server + " is unavailable for " + what + " right now: " + msg, c);
        }
        if (c instanceof RedisCommandExecutionException) {
            if (msg.startsWith("NOAUTH") || msg.startsWith("WRONGPASS") || msg.contains("invalid password")) {
                return new DelayQConnectionException("Redis at " + server + " refused the credentials: " + msg, c);
            }
            if (msg.startsWith("OOM")) {
                return new DelayQException(what + " refused: Redis at " + server
                        + " is out of memory (maxmemory reached); nothing was written: " + msg, c);
            }
            return new DelayQException(what + " failed on Redis at " + server + ": " + msg, c);
        }
        if (c instanceof RedisConnectionException || c instanceof RedisException) {
            Throwable root = c;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            String detail = root == c ? msg : root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
            if (detail.contains("NOAUTH") || detail.contains("WRONGPASS")) {
                return new DelayQConnectionException("Redis at " + server + " refused the credentials: " + detail, c);
            }
            return new DelayQConnectionException("cannot reach Redis at " + server + " (" + what + "): " + detail, c);
        }
        return new DelayQException(what + " failed: " + msg, c);
    }

    /** The cause inside CompletionException / ExecutionException wrappers. */
    public static Throwable unwrap(Throwable e) {
        Throwable c = e;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }
}
