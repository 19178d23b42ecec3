package dev.delayq.internal.redis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Runs the scripts: EVALSHA, and on NOSCRIPT (the cache emptied by a restart, a failover or SCRIPT FLUSH) EVAL with
 * the source, which also puts the script back in the cache. A flush therefore never surfaces as an error, however
 * often it happens.
 */
final class ScriptRunner {
    private ScriptRunner() {
    }

    /**
     * Runs {@code script} on {@code c}; the reply is the script's: {@code Long}, {@code byte[]}, {@code null} or nested
     * {@code List<Object>}. Failures are not translated.
     */
    static CompletableFuture<List<Object>> run(RedisClusterAsyncCommands<byte[], byte[]> c, Script script, byte[][] keys,
                                               byte[][] args) {
        return c.<List<Object>>evalsha(script.sha(), ScriptOutputType.MULTI, keys, args).toCompletableFuture().handle((r, e) -> {
            if (e == null) {
                return CompletableFuture.completedFuture(r);
            }
            Throwable cause = RedisErrors.unwrap(e);
            if (cause instanceof RedisNoScriptException) {
                return c.<List<Object>>eval(script.sourceUnsafe(), ScriptOutputType.MULTI, keys, args).toCompletableFuture();
            }
            return CompletableFuture.<List<Object>>failedFuture(cause);
        }).thenCompose(f -> f);
    }

    /** SCRIPT LOAD of every script (pipelined; on a cluster, Lettuce sends it to every master). */
    static CompletableFuture<Void> loadAll(RedisClusterAsyncCommands<byte[], byte[]> c) {
        List<CompletableFuture<String>> loads = new ArrayList<>();
        for (Script s : Script.values()) {
            loads.add(c.scriptLoad(s.sourceUnsafe()).toCompletableFuture());
        }
        return CompletableFuture.allOf(loads.toArray(new CompletableFuture[0]));
    }
}
