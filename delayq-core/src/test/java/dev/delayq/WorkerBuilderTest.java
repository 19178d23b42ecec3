package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Worker settings are checked when built; messages name the setting, its value (as 30s, never PT30S) and the bound. */
class WorkerBuilderTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private TestSupport t;
    private JobQueue q;

    @BeforeEach
    void open() {
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
        q = t.queue(t.client(), "settings");
    }

    @AfterEach
    void close() {
        t.close();
    }

    private Worker.Builder worker() {
        return Worker.builder(q, ctx -> { });
    }

    @Test
    void theLeaseIsBoundedToOneDay() {
        assertThatThrownBy(() -> worker().leaseDuration(Duration.ofDays(2)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("lease duration is 2d: it must be at most 1d");
        assertThatThrownBy(() -> worker().leaseDuration(Duration.ofMillis(50)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("lease duration is 50ms: it must be at least 100ms");
        worker().leaseDuration(Duration.ofDays(1)).build();
    }

    @Test
    void messagesPrintDurationsAsPeopleWriteThem() {
        assertThatThrownBy(() -> worker().leaseDuration(Duration.ofSeconds(1)).lookahead(Duration.ofMillis(500)).build())
                .hasMessage("lookahead is 500ms: it must be under half the lease duration (1s)");
        assertThatThrownBy(() -> worker().leaseDuration(Duration.ofSeconds(1)).ackLinger(Duration.ofMillis(200)).build())
                .hasMessage("ack linger is 200ms: it must be at most a tenth of the lease duration (1s)");
        assertThatThrownBy(() -> worker().jobTimeout(Duration.ofHours(25)).build())
                .hasMessage("job timeout is 1d1h: it must be between 1ms and 1d");
        assertThatThrownBy(() -> worker().standby(Duration.ofDays(100)).build())
                .hasMessage("standby is 100d: it must be at most 1d");
        assertThatThrownBy(() -> worker().shutdownGrace(Duration.ofSeconds(-30)).build())
                .hasMessage("shutdown grace is -30s: it must be zero or positive");
    }

    @Test
    void theHeartbeatIntervalIsBoundedAndTheNameHasNoControlCharacters() {
        assertThatThrownBy(() -> worker().heartbeatInterval(Duration.ofMillis(50)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("heartbeat interval is 50ms: it must be 100ms to 10m");
        assertThatThrownBy(() -> worker().heartbeatInterval(Duration.ofMinutes(11)).build())
                .hasMessage("heartbeat interval is 11m: it must be 100ms to 10m");
        assertThatThrownBy(() -> worker().heartbeatInterval(null).build())
                .hasMessage("heartbeat interval is missing: it must be positive");
        assertThatThrownBy(() -> worker().name("a\nb").build())
                .hasMessageStartingWith("worker name 'a").hasMessageEndingWith("contains a control character: use text "
                        + "without control characters");
        worker().heartbeatInterval(Duration.ofMillis(100)).build();
        worker().heartbeatInterval(Duration.ofMinutes(10)).build();
    }

    @Test
    void handlersByNameAreCheckedToo() {
        assertThatThrownBy(() -> Worker.builder(q).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the worker has no handler");
        assertThatThrownBy(() -> Worker.builder(q).handle("email", ctx -> { }).handle("email", ctx -> { }))
                .hasMessage("job name 'email' has a handler already: one handler per name");
        assertThatThrownBy(() -> Worker.builder(q).handle("", ctx -> { })).hasMessageStartingWith("job name must not be empty");
        assertThatThrownBy(() -> Worker.builder(q).handle("sms", null, (ctx, p) -> { }))
                .hasMessage("codec and handler of job name 'sms' must not be null");
        assertThatThrownBy(() -> Worker.builder(q, null)).hasMessage("handler must not be null");
    }

    @Test
    void spansOfMillenniaNeverOverflowTheWorkersClock() {
        Duration ages = Duration.ofDays(365L * 5000);
        try (Worker w = worker().maxIdleSleep(ages).shutdownGrace(ages).purgeInterval(ages).standby(Duration.ofDays(1))
                .build().start()) {
            q.enqueue(Job.builder().id("now").build());
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> q.inspector().stats().done() == 1);
            assertThat(w.isRunning()).isTrue();
        }
    }
}
