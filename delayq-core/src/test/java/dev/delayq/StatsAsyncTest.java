package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link QueueInspector#statsAsync()}: the figures of {@link QueueInspector#stats()}, failures translated alike. */
class StatsAsyncTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private TestSupport t;
    private DelayQ dq;

    @BeforeEach
    void open() {
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
        dq = t.client();
    }

    @AfterEach
    void close() {
        t.close();
    }

    @Test
    void theSameFiguresAsStatsOverPartitions() {
        JobQueue q = t.queue(dq, "sa", 3);
        for (int i = 0; i < 7; i++) {
            q.enqueue(Job.builder().id("j" + i).payload("p").delay(Duration.ofMinutes(5 + i)).build());
        }
        q.inspector().pause();
        QueueStats sync = q.inspector().stats();
        QueueStats async = q.inspector().statsAsync().join();
        assertThat(async.scheduled()).isEqualTo(sync.scheduled()).isEqualTo(7);
        assertThat(async.totals()).isEqualTo(sync.totals());
        assertThat(async.paused()).isTrue();
        assertThat(async.oldestDueAtMillis()).isEqualTo(sync.oldestDueAtMillis());
    }

    @Test
    void aQueueWhoseKeysCannotBeReadFailsItsFuture() {
        JobQueue q = t.queue(dq, "sb");
        q.enqueue(Job.builder().id("j").payload("p").delay(Duration.ofMinutes(5)).build());
        REDIS.server().call("HSET", new String(new dev.delayq.internal.Keys(t.prefix(), "sb").meta(), java.nio.charset.StandardCharsets.UTF_8), "enqueued", "many");
        assertThatThrownBy(() -> q.inspector().statsAsync().join()).isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(DelayQException.class).hasMessageContaining("is not a number");
    }
}
