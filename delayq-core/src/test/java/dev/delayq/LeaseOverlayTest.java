package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.testkit.RedisExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Lease overlays (record.lua): claim leases a fresh job whose record is long (256 bytes or more) by writing its lease
 * into a field of its own ("\0" + id) and leaves the record as enqueue wrote it; complete turns the overlay into done
 * or deletes both. The jobs here carry payloads of 300 bytes and more, except where a short one is the point. Every other state
 * change rewrites the record and must delete the overlay with it, or the job's old lease would come back over its
 * new record: each test here takes one such path and checks that no overlay is left where none belongs, that the
 * job reads as it should, and that the consistency check (which also reports an overlay beside a rewritten
 * record) is clean.
 */
class LeaseOverlayTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private TestSupport t;
    private DelayQ dq;
    private JobQueue q;
    private String jobs;

    @BeforeEach
    void open() {
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
        dq = t.client();
        q = t.queue(dq, "ov");
        jobs = REDIS.prefix() + ":{ov}:jobs";
    }

    @AfterEach
    void close() {
        t.close();
    }

    /** The ids of the jobs that have a lease overlay. */
    private List<String> overlays() {
        List<String> out = new ArrayList<>();
        for (Object f : (List<?>) REDIS.server().call("HKEYS", jobs)) {
            String s = f instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : f.toString();
            if (s.startsWith("\0")) {
                out.add(s.substring(1));
            }
        }
        return out;
    }

    /** A payload long enough for its job to be leased by an overlay. */
    private static String longPayload(String s) {
        return s + ".".repeat(300);
    }

    private static Job job(String id) {
        return Job.builder().id(id).payload(longPayload(id)).build();
    }

    private List<ClaimedJob> claim(int n) {
        return q.leases().claim(ClaimOptions.of(n, Duration.ofSeconds(30))).jobs();
    }

    @Test
    void onlyAFreshJobWithALongRecordIsLeasedByAnOverlay() {
        q.enqueueAll(List.of(Job.builder().id("short").payload(".".repeat(200)).build(), job("long")));
        List<ClaimedJob> held = claim(2);
        assertThat(overlays()).containsExactly("long");
        assertThat(held).extracting(ClaimedJob::attempt).containsOnly(1);
        held.forEach(j -> assertThat(q.leases().complete(j.lease())).isEqualTo(Ack.OK));
        assertThat(q.get("short").orElseThrow().state()).isEqualTo(JobState.DONE);
        assertThat(q.get("long").orElseThrow().state()).isEqualTo(JobState.DONE);
        assertThat(q.inspector().check().problems()).isEmpty();
    }

    @Test
    void aFreshJobIsLeasedByItsOverlayAndCompletedIntoIt() {
        q.enqueueAll(List.of(Job.builder().id("a").payload(longPayload("pa")).build(),
                Job.builder().id("b").payload(longPayload("pb")).build()));
        List<ClaimedJob> held = claim(2);
        assertThat(overlays()).containsExactlyInAnyOrder("a", "b");
        assertThat(held).extracting(ClaimedJob::attempt).containsOnly(1);
        assertThat(held).extracting(j -> new String(j.payload(), StandardCharsets.UTF_8))
                .containsExactly(longPayload("pa"), longPayload("pb"));
        JobInfo running = q.get("a").orElseThrow();
        assertThat(running.state()).isEqualTo(JobState.PROCESSING);
        assertThat(running.attempt()).isEqualTo(1);
        assertThat(q.inspector().check().problems()).isEmpty();

        assertThat(q.leases().complete(held.get(0).lease())).isEqualTo(Ack.OK);
        assertThat(q.leases().complete(held.get(0).lease())).as("a replay").isEqualTo(Ack.ALREADY_APPLIED);
        assertThat(q.leases().complete(held.get(1).lease())).isEqualTo(Ack.OK);
        assertThat(overlays()).as("done, kept for the retention").containsExactlyInAnyOrder("a", "b");
        JobInfo done = q.get("a").orElseThrow();
        assertThat(done.state()).isEqualTo(JobState.DONE);
        assertThat(done.payloadUtf8()).isEqualTo(longPayload("pa"));
        assertThat(q.inspector().list(JobState.DONE, 0, 10)).extracting(JobInfo::id).containsExactlyInAnyOrder("a", "b");
        assertThat(q.inspector().check().problems()).isEmpty();

        assertThat(q.inspector().purge(Duration.ZERO).done()).isEqualTo(2);
        assertThat(REDIS.server().call("EXISTS", jobs)).isEqualTo(0L);
    }

    @Test
    void withoutRetentionTheCompletionDeletesRecordAndOverlay() {
        JobQueue n = t.queue(t.client(c -> c.doneRetention(Duration.ZERO)), "ov");
        n.enqueue(job("a"));
        ClaimedJob j = n.leases().claim(ClaimOptions.of(1, Duration.ofSeconds(30))).jobs().get(0);
        assertThat(n.leases().complete(j.lease())).isEqualTo(Ack.OK);
        assertThat(REDIS.server().call("EXISTS", jobs)).isEqualTo(0L);
    }

    @Test
    void failRetryAndFailDeadRewriteTheRecordAndDropTheOverlay() {
        q.enqueueAll(List.of(job("r"), job("d")));
        List<ClaimedJob> held = claim(2);
        assertThat(q.leases().fail(held.get(0).lease(), "again", true, Duration.ZERO).outcome())
                .isEqualTo(FailResult.Outcome.RETRY_SCHEDULED);
        assertThat(q.leases().fail(held.get(1).lease(), "never", false, Duration.ZERO).outcome())
                .isEqualTo(FailResult.Outcome.DEAD);
        assertThat(overlays()).isEmpty();
        assertThat(q.get("r").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
        assertThat(q.get("d").orElseThrow().state()).isEqualTo(JobState.DEAD);
        assertThat(q.inspector().check().problems()).isEmpty();

        // The retried job is no longer fresh: its next lease is written into its record, and completes from there.
        ClaimedJob again = claim(1).get(0);
        assertThat(again.attempt()).isEqualTo(2);
        assertThat(overlays()).isEmpty();
        assertThat(q.leases().complete(again.lease())).isEqualTo(Ack.OK);
        assertThat(q.get("r").orElseThrow().state()).isEqualTo(JobState.DONE);
        assertThat(q.inspector().retryDead("d").changed()).isTrue();
        assertThat(q.inspector().check().problems()).isEmpty();
    }

    @Test
    void releaseAndRecoveryRewriteTheRecordAndDropTheOverlay() {
        q.enqueueAll(List.of(job("rel"), job("rec")));
        // Leases long enough that the release below comes before they end, however busy the machine.
        List<ClaimedJob> held = q.leases().claim(ClaimOptions.of(2, Duration.ofSeconds(3))).jobs();
        ClaimedJob rel = held.get(0).id().equals("rel") ? held.get(0) : held.get(1);
        ClaimedJob rec = held.get(0).id().equals("rec") ? held.get(0) : held.get(1);
        assertThat(q.leases().release(List.of(rel.lease()))).containsExactly(Ack.OK);
        assertThat(overlays()).containsExactly("rec");
        t.awaitRedisTime(rec.leaseUntilMillis());
        RecoverResult r = q.leases().recover(10, RetryPolicy.builder().base(Duration.ofMillis(1)).cap(Duration.ofMillis(1)).build());
        assertThat(r.recovered()).isEqualTo(1);
        assertThat(overlays()).isEmpty();
        JobInfo recovered = q.get("rec").orElseThrow();
        assertThat(recovered.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(recovered.attempt()).as("a stall gives the attempt back").isZero();
        assertThat(q.leases().complete(rec.lease())).as("the expired lease").isEqualTo(Ack.STALE);
        assertThat(q.inspector().check().problems()).isEmpty();
    }

    @Test
    void aJobWithADedupeKeyOrWithEventsOnCompletesThroughItsRecordAndReleasesTheKey() {
        q.inspector().events(true);
        q.enqueue(Job.builder().id("k").payload(longPayload("k")).dedupe("key", Duration.ofMillis(1)).build());
        ClaimedJob j = claim(1).get(0);
        assertThat(overlays()).containsExactly("k");
        assertThat(q.leases().complete(j.lease())).isEqualTo(Ack.OK);
        assertThat(q.get("k").orElseThrow().state()).isEqualTo(JobState.DONE);
        assertThat(overlays()).as("done, beside the record as enqueued").containsExactly("k");
        assertThat(q.inspector().events().read("0", 100)).extracting(JobEvent::type).contains("completed");
        t.awaitRedisTime(t.redisNow() + 2);
        assertThat(q.enqueue(Job.builder().id("k2").dedupe("key", Duration.ofMinutes(1)).build()).created())
                .as("the key was released").isTrue();
        assertThat(q.inspector().delete("k").changed()).isTrue();
        assertThat(overlays()).isEmpty();
        assertThat(q.inspector().check().problems()).isEmpty();
    }

    @Test
    void anOverlayThatCannotBeReadIsMovedAsideWithTheRecordsBytes() {
        q.enqueue(Job.builder().id("x").payload(longPayload("keep me")).build());
        ClaimedJob j = claim(1).get(0);
        REDIS.server().call("HSET", jobs, "\0x", "\u0002");
        assertThat(q.leases().complete(j.lease())).isEqualTo(Ack.STALE);
        JobInfo x = q.get("x").orElseThrow();
        assertThat(x.state()).isEqualTo(JobState.DEAD);
        assertThat(x.lastError()).isEqualTo("record cannot be decoded");
        assertThat(x.payloadUtf8()).startsWith("\0").endsWith(longPayload("keep me"));
        assertThat(overlays()).isEmpty();
    }

    @Test
    void theCheckReportsAnOverlayWithoutARecordAndOneBesideARewrittenRecord() {
        q.enqueueAll(List.of(job("a"), job("b")));
        List<ClaimedJob> held = claim(2);
        q.leases().fail(held.get(1).lease(), "x", true, Duration.ofHours(1));
        REDIS.server().call("HSET", jobs, "\0ghost", "\u0002\u0001\u0001\u0001");
        REDIS.server().call("HSET", jobs, "\0b", "\u0002\u0001\u0001\u0001");
        assertThat(q.inspector().check().problems()).contains("ghost: lease overlay without a record",
                "b: lease overlay beside a record that was rewritten (scheduled)");
        REDIS.server().call("HDEL", jobs, "\0ghost", "\0b");
        assertThat(q.inspector().check().problems()).isEmpty();
    }
}
