package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The registry of queue names ({@link DelayQ#queues()}): filled by a first enqueue, or at once by createQueue. */
class QueueRegistryTest {
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
    void aSettingAloneDoesNotListAQueueButCreateQueueDoesAtOnce() {
        JobQueue settingOnly = dq.queue("reg-setting");
        settingOnly.inspector().pause();
        assertThat(dq.queues()).doesNotContain("reg-setting");

        JobQueue created = dq.createQueue("reg-created", 0);
        assertThat(dq.queues()).contains("reg-created"); // no wait: the call returns once Redis recorded it
        assertThat(created.inspector().stats().scheduled()).isZero();
        assertThat(dq.createQueue("reg-created", 0).name()).isEqualTo("reg-created"); // again: nothing changes
        assertThat(dq.queues()).filteredOn("reg-created"::equals).hasSize(1);
    }

    @Test
    void createQueueRecordsThePartitionsAndRefusesBadInputBeforeWriting() {
        dq.createQueue("reg-parts", 3);
        assertThat(dq.queues()).contains("reg-parts");
        assertThat(REDIS.server().call("HGET", REDIS.prefix() + ":{reg-parts}:config", "partitions")).isEqualTo("3");
        assertThatThrownBy(() -> dq.createQueue("reg-parts", 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has 3 partition(s); asked for 2");
        assertThatThrownBy(() -> dq.createQueue("bad name", 0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(dq.queues()).doesNotContain("bad name");
    }
}
