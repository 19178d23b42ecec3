package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.internal.Keys;
import dev.delayq.internal.ops.Purge;
import dev.delayq.testkit.RedisExtension;
import dev.delayq.testkit.Resp;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Done batch entries (lua/includes/record.lua): a complete call keeps one entry for all its jobs, each job's record
 * carries its finish time, and every reader (get, list, stats, delete, purge, check) sees the jobs one by one, as it
 * sees those of the done set (jobs completed under a lease overlay).
 */
class DoneBatchTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private TestSupport t;
    private DelayQ dq;
    private JobQueue q;
    private Resp raw;
    private String p;

    @BeforeEach
    void open() {
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
        dq = t.client();
        q = t.queue(dq, "b");
        raw = REDIS.server().connect();
        p = REDIS.prefix() + ":{b}:";
    }

    @AfterEach
    void close() throws IOException {
        raw.close();
        t.close();
    }

    private Object call(String... args) {
        try {
            return raw.callRaw(args);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** The ids of each done batch entry, in score order. */
    private List<List<String>> entries() {
        List<List<String>> out = new ArrayList<>();
        for (Object m : (List<?>) call("ZRANGE", p + "done:batches", "0", "-1")) {
            List<String> parts = Arrays.asList(new String((byte[]) m, StandardCharsets.UTF_8).split("\0"));
            out.add(parts.subList(1, parts.size()));
        }
        return out;
    }

    private List<ClaimedJob> claimAll(int n) {
        List<ClaimedJob> got = q.leases().claim(ClaimOptions.of(n, Duration.ofSeconds(30))).jobs();
        assertThat(got).hasSize(n);
        return got;
    }

    private void complete(List<ClaimedJob> jobs) {
        assertThat(q.leases().completeAllAsync(jobs.stream().map(ClaimedJob::lease).toList()).join()).allMatch(a -> a == Ack.OK);
    }

    private static Job job(String id) {
        return Job.builder().id(id).payload("payload of " + id).build();
    }

    @Test
    void deletingDoneJobsTakesThemOutOfTheirEntryAndTheCountsFollow() {
        q.enqueueAll(List.of(job("a"), job("b"), job("c"), job("d")));
        List<ClaimedJob> jobs = claimAll(4);
        long before = t.redisNow();
        complete(jobs);
        assertThat(entries()).containsExactly(List.of("a", "b", "c", "d"));
        JobInfo b = q.get("b").orElseThrow();
        assertThat(b.state()).isEqualTo(JobState.DONE);
        assertThat(b.finishedAtMillis()).isBetween(before, t.redisNow());
        assertThat(b.payloadUtf8()).isEqualTo("payload of b");
        assertThat(q.list(JobState.DONE, 0, 10)).extracting(JobInfo::id).containsExactly("a", "b", "c", "d");
        assertThat(q.stats().done()).isEqualTo(4);
        // A replayed acknowledgement finds the job done with its token.
        assertThat(q.leases().complete(jobs.get(1).lease())).isEqualTo(Ack.ALREADY_APPLIED);

        assertThat(q.delete("b").changed()).isTrue();
        assertThat(entries()).containsExactly(List.of("a", "c", "d"));
        assertThat(q.delete("d").changed()).isTrue();
        assertThat(q.delete("a").changed()).isTrue();
        assertThat(entries()).containsExactly(List.of("c"));
        assertThat(q.stats().done()).isEqualTo(1);
        assertThat(q.list(JobState.DONE, 0, 10)).extracting(JobInfo::id).containsExactly("c");
        assertThat(q.check().problems()).isEmpty();
        assertThat(q.delete("c").changed()).isTrue();
        assertThat(entries()).isEmpty();
        assertThat(q.stats().done()).isZero();
        assertThat(q.check().problems()).isEmpty();
    }

    @Test
    void anEntryListingAnIdThatIsNoLongerItsJobIsReadPastReportedAndPurgedWithoutTouchingThatJob() {
        q.enqueueAll(List.of(job("x"), job("y")));
        complete(claimAll(2));
        // x's record damaged beyond reading its finish time, then deleted: its entry still lists it.
        call("HSET", p + "jobs", "x", "\u0007damaged");
        assertThat(q.delete("x").changed()).isTrue();
        assertThat(entries()).containsExactly(List.of("x", "y"));
        q.enqueue(Job.builder().id("x").payload("the new x").runAt(java.time.Instant.now().plusSeconds(3600)).build());

        assertThat(q.list(JobState.DONE, 0, 10)).extracting(JobInfo::id).containsExactly("y");
        assertThat(q.check().problems()).containsExactly("x: in a done batch entry but its record is scheduled");
        assertThat(q.purge(Duration.ZERO).done()).isEqualTo(1);
        assertThat(q.get("y")).isEmpty();
        assertThat(q.get("x").orElseThrow().payloadUtf8()).isEqualTo("the new x");
        assertThat(entries()).isEmpty();
        assertThat(q.stats().done()).isZero();
        assertThat(q.check().problems()).isEmpty();
    }

    @Test
    void aDamagedRecordWhoseFinishTimeCanStillBeReadLeavesItsEntryWhenDeleted() {
        q.enqueueAll(List.of(job("u"), job("v")));
        complete(claimAll(2));
        // Its state byte and finish time kept, its sequence number cut off inside a varint (done by Lua: bytes as they are).
        call("EVAL", "redis.call('HSET', KEYS[1], ARGV[1], string.sub(redis.call('HGET', KEYS[1], ARGV[1]), 1, 8) .. '\\255\\255')",
                "1", p + "jobs", "u");
        assertThat(q.get("u").orElseThrow().corrupt()).isTrue();
        assertThat(q.delete("u").changed()).isTrue();
        assertThat(entries()).containsExactly(List.of("v"));
        assertThat(q.stats().done()).isEqualTo(1);
        assertThat(q.check().problems()).isEmpty();
    }

    @Test
    void aPurgeStepCutShortInsideAnEntryKeepsTheRestListed() {
        // 600 jobs completed under lease overlays (records of 256 bytes or more) go to the done set, one entry each;
        // then 1,000 in one call: a purge step of 1,000 takes the 600 and 400 of the entry.
        String big = "x".repeat(300);
        List<Job> first = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            first.add(Job.builder().id(String.format("o%03d", i)).payload(big).build());
        }
        q.enqueueAll(first);
        complete(claimAll(600));
        List<Job> second = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            second.add(job(String.format("n%04d", i)));
        }
        q.enqueueAll(second);
        complete(claimAll(1000));
        assertThat((Long) call("ZCARD", p + "done")).isEqualTo(600);
        assertThat(entries()).hasSize(1);
        assertThat(q.stats().done()).isEqualTo(1600);
        List<JobInfo> listed = q.list(JobState.DONE, 0, 2000);
        assertThat(listed).hasSize(1600);
        assertThat(listed.subList(0, 600)).allMatch(j -> j.id().startsWith("o"));
        assertThat(q.list(JobState.DONE, 1500, 10)).extracting(JobInfo::id).containsExactlyElementsOf(
                listed.subList(1500, 1510).stream().map(JobInfo::id).toList());

        Purge.Step step = Purge.step(dq.backend(), new Keys(REDIS.prefix(), "b"), 0, -1, 0, null).join();
        assertThat(step.done()).isEqualTo(1000);
        assertThat(step.more()).isTrue();
        assertThat(entries()).hasSize(1);
        assertThat(entries().get(0)).hasSize(600).first().isEqualTo("n0400");
        assertThat(q.stats().done()).isEqualTo(600);
        assertThat(q.get("n0399")).isEmpty();
        assertThat(q.get("n0400").orElseThrow().state()).isEqualTo(JobState.DONE);
        assertThat(q.check().problems()).isEmpty();
        assertThat(q.purge(Duration.ZERO).done()).isEqualTo(600);
        assertThat(entries()).isEmpty();
        assertThat(q.stats().done()).isZero();
    }

    @Test
    void aListPageEndsInsideAnEntryAtItsByteBoundAndTheNextGoesOnFromThere() {
        // Jobs that were leased before (retried) are leased and completed by rewriting their records, whatever their
        // size: five records of 1.5 MB in one entry take two pages of at most 4 MB.
        q = t.queue(t.client(c -> c.maxPayloadBytes(2_000_000)), "b");
        byte[] payload = new byte[1_500_000];
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Arrays.fill(payload, (byte) ('a' + i));
            jobs.add(Job.builder().id("big" + i).payload(payload.clone()).build());
        }
        q.enqueueAll(jobs);
        for (ClaimedJob j : claimAll(5)) {
            q.leases().fail(j.lease(), "again", true, Duration.ZERO);
        }
        complete(claimAll(5));
        assertThat(entries()).containsExactly(List.of("big0", "big1", "big2", "big3", "big4"));
        List<JobInfo> listed = q.list(JobState.DONE, 0, 10);
        assertThat(listed).extracting(JobInfo::id).containsExactly("big0", "big1", "big2", "big3", "big4");
        for (int i = 0; i < 5; i++) {
            assertThat(listed.get(i).payload()).isEqualTo(jobs.get(i).payload());
            assertThat(listed.get(i).attempt()).isEqualTo(2);
        }
        assertThat(q.stream(JobState.DONE).map(JobInfo::id).toList()).containsExactly("big0", "big1", "big2", "big3", "big4");
    }
}
