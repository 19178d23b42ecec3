package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.internal.present.JobFields;
import dev.delayq.testkit.RedisExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Previews cut by the scripts (issue 43): list and get with a preview size carry each payload's first bytes and its
 * whole size, whatever index the job is in (due set, priority set, leases, done batches, dead) and over partitions.
 */
class PayloadPreviewTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();
    private static final int BIG = 300_000;

    private TestSupport t;
    private DelayQ dq;

    @BeforeEach
    void open() {
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
        dq = t.client(b -> b.maxPayloadBytes(1024 * 1024));
    }

    @AfterEach
    void close() {
        t.close();
    }

    private static byte[] big(byte fill) {
        byte[] b = new byte[BIG];
        Arrays.fill(b, fill);
        return b;
    }

    @Test
    void everyIndexGivesPreviewsWithTheWholeSize() {
        JobQueue q = t.queue(dq, "pv");
        q.enqueue(Job.builder().id("small").payload("tiny").delay(Duration.ofHours(1)).build());
        q.enqueue(Job.builder().id("sched").payload(big((byte) 's')).delay(Duration.ofHours(1)).name("n").build());
        q.enqueue(Job.builder().id("prio").payload(big((byte) 'p')).delay(Duration.ofHours(2)).priority(5).build());
        q.enqueue(Job.builder().id("wait").payload(big((byte) 'w')).after("sched").build()); // waiting (docs/flows.md)
        q.enqueue(Job.builder().id("run").payload(big((byte) 'r')).build());
        List<ClaimedJob> running = q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(10))).jobs();
        assertThat(running).extracting(ClaimedJob::id).containsExactly("run");
        q.enqueue(Job.builder().id("fin").payload(big((byte) 'f')).build());
        q.leases().complete(q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(10))).jobs().get(0).lease());
        q.enqueue(Job.builder().id("died").payload(big((byte) 'd')).build());
        q.leases().fail(q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(10))).jobs().get(0).lease(), "boom", false,
                Duration.ZERO);

        QueueInspector in = q.inspector();
        for (JobState state : JobState.values()) {
            List<JobInfo> page = in.list(state, 0, 10, 100);
            assertThat(page).as(state.label()).isNotEmpty();
            for (JobInfo j : page) {
                if (j.id().equals("small")) {
                    assertThat(j.payloadUtf8()).isEqualTo("tiny");
                    assertThat(j.payloadTruncated()).isFalse();
                    assertThat(j.payloadBytes()).isEqualTo(4);
                    continue;
                }
                assertThat(j.payload()).as(j.id()).hasSize(100);
                assertThat(j.payloadBytes()).as(j.id()).isEqualTo(BIG);
                assertThat(j.payloadTruncated()).isTrue();
                assertThat(j.payload()[0]).isEqualTo((byte) j.id().charAt(0));
            }
        }
        assertThat(in.list(JobState.SCHEDULED, 0, 10, 100)).extracting(JobInfo::id).containsExactly("small", "sched", "prio");
        assertThat(in.list(JobState.SCHEDULED, 0, 10, 100).get(1).name()).isEqualTo("n");
        assertThat(in.list(JobState.DEAD, 0, 10, 100).get(0).lastError()).isEqualTo("boom");

        JobInfo one = in.get("died", 10).orElseThrow();
        assertThat(one.payload()).hasSize(10);
        assertThat(one.payloadBytes()).isEqualTo(BIG);
        assertThat(one.state()).isEqualTo(JobState.DEAD);
        assertThat(in.get("fin", 0).orElseThrow().payload()).isEmpty();
        assertThat(in.get("fin", 0).orElseThrow().payloadBytes()).isEqualTo(BIG);
        // Without a preview size, the whole payload as before.
        assertThat(in.get("fin").orElseThrow().payload()).hasSize(BIG);
        assertThat(in.list(JobState.DONE, 0, 10)).singleElement().satisfies(j -> assertThat(j.payload()).hasSize(BIG));
        assertThat(in.get("nothing", 10)).isEmpty();
        assertThatThrownBy(() -> in.list(JobState.DONE, 0, 10, -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("preview bytes");
    }

    @Test
    void partitionsMergeThePreviews() {
        JobQueue q = t.queue(dq, "pv4", 4);
        for (int i = 0; i < 8; i++) {
            q.enqueue(Job.builder().id("j" + i).payload(big((byte) ('a' + i))).delay(Duration.ofMinutes(10 + i)).build());
        }
        List<JobInfo> page = q.inspector().list(JobState.SCHEDULED, 2, 4, 64);
        assertThat(page).extracting(JobInfo::id).containsExactly("j2", "j3", "j4", "j5");
        assertThat(page).allSatisfy(j -> {
            assertThat(j.payload()).hasSize(64);
            assertThat(j.payloadBytes()).isEqualTo(BIG);
        });
    }

    /** A cut that ends inside a character is still shown as text, up to the last whole character. */
    @Test
    void aPreviewCutInsideACharacterIsStillText() {
        JobQueue q = t.queue(dq, "pvu");
        String text = "\u00e9".repeat(1000); // 2 bytes each
        q.enqueue(Job.builder().id("u").payload(text).delay(Duration.ofHours(1)).build());
        JobInfo j = q.inspector().get("u", 101).orElseThrow();
        assertThat(j.payload()).hasSize(101);
        Map<String, Object> fields = JobFields.job(j, 4096);
        assertThat(fields.get("payload")).isEqualTo("\u00e9".repeat(50));
        assertThat(fields.get("payloadBytes")).isEqualTo(2000);
        assertThat(fields.get("payloadTruncated")).isEqualTo(true);
        assertThat(new String(j.payload(), 0, 100, StandardCharsets.UTF_8)).isEqualTo("\u00e9".repeat(50));
    }
}
