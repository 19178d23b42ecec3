package dev.delayq.docs;

import dev.delayq.DelayQ;
import dev.delayq.RetryPolicy;
import java.time.Duration;

/** docs/configuration.md: the client's settings. */
final class Configuration {
    private Configuration() {
    }

    static DelayQ client() {
        // tag::client[]
        DelayQ dq = DelayQ.builder()
                .redis("redis://10.0.0.5:6379/0")           // rediss:// for TLS, redis-sentinel:// for Sentinel
                .prefix("billing")                           // the first part of every key [dq]
                .timeout(Duration.ofSeconds(5))              // every command and connect [10 s]
                .maxPayloadBytes(64 * 1024)                  // the largest payload accepted [256 KiB]
                .doneRetention(Duration.ZERO)                // completed jobs deleted at once [1 h]
                .deadRetention(Duration.ofDays(30))          // dead jobs kept [7 days]
                .retryPolicy(RetryPolicy.builder().maxAttempts(8).build())   // [5 attempts, 5 s base, 1 h cap]
                .build();
        // ... dq.close() closes its workers first, gracefully, then the connections
        // end::client[]
        return dq;
    }
}
