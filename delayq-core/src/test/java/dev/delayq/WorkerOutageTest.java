package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.micrometer.MicrometerMetrics;
import dev.delayq.testkit.RedisExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A worker survives Redis going away and coming back (empty script cache included) without a restart. */
class WorkerOutageTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.dedicated(b -> b.config("appendonly", "yes").config("appendfsync", "always"));

    @Test
    void aWorkerKeepsGoingThroughARedisRestart() {
        try (TestSupport t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix())) {
            DelayQ dq = t.client(b -> b.timeout(Duration.ofSeconds(1)));
            Queue q = t.queue(dq, "outage");
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            // A short idle sleep makes the worker call Redis during the outage (a wake-up notice published just
            // before the crash may never be delivered; the reconnect wakes the worker in that case).
            try (Worker w = Worker.builder(q, job -> { }).metrics(new MicrometerMetrics(registry))
                    .maxIdleSleep(Duration.ofMillis(200)).build().start()) {
                for (int i = 0; i < 10; i++) {
                    q.enqueue(Job.builder().id("before-" + i).build());
                }
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> q.stats().done() == 10);
                q.enqueue(Job.builder().id("due-after-restart").delay(Duration.ofSeconds(2)).build());

                REDIS.server().kill();
                Awaitility.await().atMost(Duration.ofSeconds(30))
                        .until(() -> registry.find("delayq.redis.errors").counters().stream().mapToDouble(c -> c.count()).sum() > 0);
                REDIS.server().restart();

                Awaitility.await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                        .until(() -> q.enqueue(Job.builder().id("after").build()).created());
                Awaitility.await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> q.stats().done() == 12);
                assertThat(w.isRunning()).isTrue();
                assertThat(q.get("due-after-restart").orElseThrow().attempt()).isEqualTo(1);
            }
        }
    }
}
