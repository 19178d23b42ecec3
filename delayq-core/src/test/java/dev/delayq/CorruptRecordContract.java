package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A record that cannot be decoded (written by something other than delayq, or damaged) never strands the healthy jobs
 * around it: every script decodes before it writes, moves the bad record aside to dead with its raw bytes, and goes
 * on; reads flag it instead of failing whole. Subclasses run it on a single node, a partitioned queue, a cluster and a
 * partitioned queue on a cluster.
 */
abstract class CorruptRecordContract {
    private TestSupport t;
    private DelayQ dq;
    private JobQueue q;

    /** Where the test runs. */
    abstract Target target();

    /** A key prefix of this test alone. */
    abstract String prefix();

    /** Partitions of the queue under test (1: a plain queue). */
    int partitions() {
        return 1;
    }

    @BeforeEach
    void open() {
        t = new TestSupport(target(), prefix());
        dq = t.client();
        q = t.queue(dq, "g", partitions());
    }

    @AfterEach
    void close() {
        t.close();
    }

    /** Overwrites the record of {@code id}, in the key set (partition) that holds it. */
    private void corrupt(String id, String bytes) {
        String tag = TestSupport.partitioned(q) ? "g#" + TestSupport.partitionOf(q, id) : "g";
        t.target().call("HSET", prefix() + ":{" + tag + "}:jobs", id, bytes);
    }

    /** A problem {@code check} reports about job {@code id}: named with its partition on a partitioned queue. */
    private String problem(String id, String what) {
        String line = id + ": " + what;
        return TestSupport.partitioned(q) ? "partition " + TestSupport.partitionOf(q, id) + ": " + line : line;
    }

    /** {@code ids} as claimed: in this order from one key set; from several, each asked in turn, so in any order. */
    private void assertClaimed(List<ClaimedJob> jobs, String... ids) {
        if (partitions() == 1) {
            assertThat(jobs).extracting(ClaimedJob::id).containsExactly(ids);
        } else {
            assertThat(jobs).extracting(ClaimedJob::id).containsExactlyInAnyOrder(ids);
        }
    }

    @Test
    void oneUnreadableRecordDoesNotLoseTheOtherJobsOfItsClaimBatch() {
        for (int i = 1; i <= 5; i++) {
            q.enqueue(Job.builder().id("g" + i).payload("p" + i).build());
        }
        corrupt("g3", "");
        ClaimBatch b = q.leases().claim(ClaimOptions.of(10, Duration.ofSeconds(30)));
        assertClaimed(b.jobs(), "g1", "g2", "g4", "g5");
        assertThat(b.quarantined()).isEqualTo(1);
        JobInfo bad = q.get("g3").orElseThrow();
        assertThat(bad.state()).isEqualTo(JobState.DEAD);
        assertThat(bad.lastError()).isEqualTo("record cannot be decoded");
        assertThat(bad.payload()).isEmpty(); // the raw bytes, kept
        assertThat(q.inspector().stats().total("quarantined")).isEqualTo(1);
        b.jobs().forEach(j -> assertThat(q.leases().complete(j.lease())).isEqualTo(Ack.OK));
        assertThat(q.inspector().check().problems()).isEmpty();
    }

    @Test
    void recoveryMovesAnUnreadableLeasedRecordAsideAndRecoversTheOthers() {
        q.enqueueAll(List.of(Job.builder().id("a").build(), Job.builder().id("b").build()));
        ClaimBatch b = q.leases().claim(ClaimOptions.of(2, Duration.ofMillis(50)));
        assertThat(b.jobs()).hasSize(2);
        corrupt("a", "\u0007not a record");
        t.awaitRedisTime(b.jobs().stream().mapToLong(ClaimedJob::leaseUntilMillis).max().orElseThrow());
        RecoverResult r = q.leases().recover(10, RetryPolicy.builder().base(Duration.ofMillis(1)).cap(Duration.ofMillis(1)).build());
        assertThat(r).isEqualTo(new RecoverResult(1, 1, -1));
        assertThat(q.get("b").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
        JobInfo a = q.get("a").orElseThrow();
        assertThat(a.state()).isEqualTo(JobState.DEAD);
        assertThat(a.payloadUtf8()).isEqualTo("\u0007not a record");
        assertThat(q.inspector().check().problems()).isEmpty();
    }

    @Test
    void completeAndFailOfAnUnreadableRecordAreRefusedAndTheRecordIsMovedAside() {
        q.enqueueAll(List.of(Job.builder().id("c").build(), Job.builder().id("f").build()));
        List<ClaimedJob> held = q.leases().claim(ClaimOptions.of(2, Duration.ofSeconds(30))).jobs();
        corrupt("c", "\u00ff");
        corrupt("f", "\u00ff");
        assertThat(q.leases().complete(held.get(0).lease())).isEqualTo(Ack.STALE);
        assertThat(q.leases().fail(held.get(1).lease(), "x", true, Duration.ZERO).outcome()).isEqualTo(FailResult.Outcome.STALE);
        assertThat(q.get("c").orElseThrow().state()).isEqualTo(JobState.DEAD);
        assertThat(q.get("f").orElseThrow().state()).isEqualTo(JobState.DEAD);
        assertThat(q.inspector().stats().processing()).isZero();
        assertThat(q.inspector().check().problems()).isEmpty();
    }

    @Test
    void aCompletionJudgedByItsLeaseOverlayAcceptsItAndTheDamagedRecordIsReportedAndKept() {
        q.enqueue(Job.builder().id("o").payload("o".repeat(300)).build()); // long: leased by an overlay
        ClaimedJob held = q.leases().claim(ClaimOptions.of(1, Duration.ofSeconds(30))).jobs().get(0);
        corrupt("o", "\u00ffdamaged");
        // claim leased the fresh job by an overlay (record.lua): complete reads only that, and the lease is intact.
        assertThat(q.leases().complete(held.lease())).isEqualTo(Ack.OK);
        assertThat(q.inspector().stats().processing()).isZero();
        JobInfo o = q.get("o").orElseThrow();
        assertThat(o.state()).isEqualTo(JobState.DONE);
        assertThat(o.payloadUtf8()).isEqualTo("\u00ffdamaged"); // every byte kept
        assertThat(q.inspector().check().problems()).containsExactly(problem("o", "record cannot be decoded"));
        assertThat(q.inspector().delete("o").changed()).isTrue();
        assertThat(q.inspector().check().problems()).isEmpty();
    }

    @Test
    void retryingDeadJobsStepsOverAnUnreadableOneAndMovesTheOthers() {
        q.enqueueAll(List.of(Job.builder().id("d1").build(), Job.builder().id("d2").build()));
        for (ClaimedJob j : q.leases().claim(ClaimOptions.of(2, Duration.ofSeconds(30))).jobs()) {
            q.leases().fail(j.lease(), "no", false, Duration.ZERO);
        }
        corrupt("d1", "");
        assertThatThrownBy(() -> q.inspector().retryDead("d1")).isInstanceOf(DelayQException.class)
                .hasMessageContaining("cannot be decoded");
        assertThat(q.inspector().retryAllDead()).isEqualTo(1);
        assertThat(q.get("d2").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
        assertThat(q.inspector().check().problems()).containsExactly(problem("d1", "record cannot be decoded"));
        assertThat(q.inspector().delete("d1").changed()).isTrue();
        assertThat(q.inspector().check().problems()).isEmpty();
    }

    @Test
    void listAndGetFlagAnUnreadableRecordInsteadOfFailingWhole() {
        // Due one after another, so that a list merged from several partitions has one order too.
        long due = t.redisNow() - 10;
        q.enqueueAll(List.of(Job.builder().id("l1").runAt(Instant.ofEpochMilli(due)).build(),
                Job.builder().id("l2").runAt(Instant.ofEpochMilli(due + 1)).build(),
                Job.builder().id("l3").runAt(Instant.ofEpochMilli(due + 2)).build()));
        corrupt("l2", "nonsense");
        List<JobInfo> listed = q.inspector().list(JobState.SCHEDULED, 0, 10);
        assertThat(listed).extracting(JobInfo::id).containsExactly("l1", "l2", "l3");
        assertThat(listed).extracting(JobInfo::corrupt).containsExactly(false, true, false);
        JobInfo bad = q.get("l2").orElseThrow();
        assertThat(bad.corrupt()).isTrue();
        assertThat(bad.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(bad.lastError()).startsWith("record cannot be decoded");
        assertThat(bad.payloadUtf8()).isEqualTo("nonsense");
        assertThatThrownBy(() -> q.cancel("l2")).isInstanceOf(DelayQException.class).hasMessageContaining("cannot be decoded");
        assertThat(q.inspector().delete("l2").changed()).isTrue();
        // Its due entry, whose member cannot be known without the record, is dropped by the next claim.
        List<ClaimedJob> rest = q.leases().claim(ClaimOptions.of(10, Duration.ofSeconds(30))).jobs();
        assertClaimed(rest, "l1", "l3");
        rest.forEach(j -> q.leases().complete(j.lease()));
    }

    @Test
    void aBadNameInTheQueueRegistryDoesNotHideTheOthers() {
        q.enqueue(Job.builder().id("x").build());
        t.target().call("SADD", prefix() + ":queues", "not a {valid} name");
        List<String> names = new ArrayList<>(dq.queues());
        assertThat(names).containsExactly("g", "not a {valid} name");
        assertThatThrownBy(() -> dq.queue("not a {valid} name")).isInstanceOf(IllegalArgumentException.class);
        t.target().call("SREM", prefix() + ":queues", "not a {valid} name");
    }
}
