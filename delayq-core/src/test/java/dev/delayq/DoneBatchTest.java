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
        assertThat(q.inspector().list(JobState.DONE, 0, 10)).extracting(JobInfo::id).containsExactly("a", "b", "c", "d");
        assertThat(q.inspector().stats().done()).isEqualTo(4);
        // A replayed acknowledgement finds the job done with its token.
        assertThat(q.leases().complete(jobs.get(1).lease())).isEqualTo(Ack.ALREADY_APPLIED);

        assertThat(q.inspector().delete("b").changed()).isTrue();
        assertThat(entries()).containsExactly(List.of("a", "c", "d"));
        assertThat(q.inspector().delete("d").changed()).isTrue();
        assertThat(q.inspector().delete("a").changed()).isTrue();
        assertThat(entries()).containsExactly(List.of("c"));
        assertThat(q.inspector().stats().done()).isEqualTo(1);
        assertThat(q.inspector().list(JobState.DONE, 0, 10)).extracting(JobInfo::id).containsExactly("c");
        assertThat(q.inspector().check().problems()).isEmpty();
        assertThat(q.inspector().delete("c").changed()).isTrue();
        assertThat(entries()).isEmpty();
        assertThat(q.inspector().stats().done()).isZero();
        assertThat(q.inspector().check().problems()).isEmpty();
    }

    @Test
    void anEntryListingAnIdThatIsNoLongerItsJobIsReadPastReportedAndPurgedWithoutTouchingThatJob() {
        q.enqueueAll(List.of(job("x"), job("y")));
        complete(claimAll(2));
        // x's record damaged beyond reading its finish time, then deleted: its entry still lists it.
        call("HSET", p + "jobs", "x", "\u0007damaged");
        assertThat(q.inspector().delete("x").changed()).isTrue();
        assertThat(entries()).containsExactly(List.of("x", "y"));
        q.enqueue(Job.builder().id("x").payload("the new x").runAt(java.time.Instant.now().plusSeconds(3600)).build());

        assertThat(q.inspector().list(JobState.DONE, 0, 10)).extracting(JobInfo::id).containsExactly("y");
        assertThat(q.inspector().check().problems()).containsExactly("x: in a done batch entry but its record is scheduled");
        assertThat(q.inspector().purge(Duration.ZERO).done()).isEqualTo(1);
        assertThat(q.get("y")).isEmpty();
        assertThat(q.get("x").orElseThrow().payloadUtf8()).isEqualTo("the new x");
        assertThat(entries()).isEmpty();
        assertThat(q.inspector().stats().done()).isZero();
        assertThat(q.inspector().check().problems()).isEmpty();
    }

    @Test
    void aDamagedRecordWhoseFinishTimeCanStillBeReadLeavesItsEntryWhenDeleted() {
        q.enqueueAll(List.of(job("u"), job("v")));
        complete(claimAll(2));
        // Its state byte and finish time kept, its sequence number cut off inside a varint (done by Lua: bytes as they are).
        call("EVAL", "redis.call('HSET', KEYS[1], ARGV[1], string.sub(redis.call('HGET', KEYS[1], ARGV[1]), 1, 8) .. '\\255\\255')",
                "1", p + "jobs", "u");
        assertThat(q.get("u").orElseThrow().corrupt()).isTrue();
        assertThat(q.inspector().delete("u").changed()).isTrue();
        assertThat(entries()).containsExactly(List.of("v"));
        assertThat(q.inspector().stats().done()).isEqualTo(1);
        assertThat(q.inspector().check().problems()).isEmpty();
    }

    @Test
    void aPurgeStepCutShortInsideAnEntryKeepsTheRestListed() {
        // 600 jobs completed in one call, then 1,000 in another: a purge step of 1,000 takes the first entry whole
        // and 400 of the second.
        for (int[] call : new int[][] {{0, 600}, {600, 1600}}) {
            List<Job> jobs = new ArrayList<>();
            for (int i = call[0]; i < call[1]; i++) {
                jobs.add(job(String.format("n%04d", i)));
            }
            q.enqueueAll(jobs);
            complete(claimAll(jobs.size()));
        }
        assertThat(entries()).extracting(List::size).containsExactly(600, 1000);
        assertThat(q.inspector().stats().done()).isEqualTo(1600);
        List<JobInfo> listed = q.inspector().list(JobState.DONE, 0, 2000);
        assertThat(listed).hasSize(1600);
        assertThat(q.inspector().list(JobState.DONE, 1500, 10)).extracting(JobInfo::id).containsExactlyElementsOf(
                listed.subList(1500, 1510).stream().map(JobInfo::id).toList());

        Purge.Step step = Purge.step(dq.backend(), new Keys(REDIS.prefix(), "b"), 0, -1, Purge.STEP, 0, null).join();
        assertThat(step.done()).isEqualTo(1000);
        assertThat(step.more()).isTrue();
        assertThat(entries()).hasSize(1);
        assertThat(entries().get(0)).hasSize(600).first().isEqualTo("n1000");
        assertThat(q.inspector().stats().done()).isEqualTo(600);
        assertThat(q.get("n0999")).isEmpty();
        assertThat(q.get("n1000").orElseThrow().state()).isEqualTo(JobState.DONE);
        assertThat(q.inspector().check().problems()).isEmpty();
        assertThat(q.inspector().purge(Duration.ZERO).done()).isEqualTo(600);
        assertThat(entries()).isEmpty();
        assertThat(q.inspector().stats().done()).isZero();
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
        List<JobInfo> listed = q.inspector().list(JobState.DONE, 0, 10);
        assertThat(listed).extracting(JobInfo::id).containsExactly("big0", "big1", "big2", "big3", "big4");
        for (int i = 0; i < 5; i++) {
            assertThat(listed.get(i).payload()).isEqualTo(jobs.get(i).payload());
            assertThat(listed.get(i).attempt()).isEqualTo(2);
        }
        assertThat(q.inspector().stream(JobState.DONE).map(JobInfo::id).toList()).containsExactly("big0", "big1", "big2", "big3", "big4");
    }

    @Test
    void aJobLeasedUnderALeaseOverlayIsDoneByItsOverlayInTheSameEntry() {
        // A fresh record of 256 bytes or more is leased and completed by its lease overlay (record.lua): the record
        // stays as enqueued, the overlay carries done and the finish time.
        q.enqueueAll(List.of(Job.builder().id("long").payload("L".repeat(300)).build(), job("short")));
        long before = t.redisNow();
        complete(claimAll(2));
        assertThat(entries()).hasSize(1);
        assertThat(entries().get(0)).containsExactlyInAnyOrder("long", "short");
        JobInfo l = q.get("long").orElseThrow();
        // The overlay as stored, read by the client's decoder: done, with the same finish time.
        dev.delayq.internal.Record stored = dev.delayq.internal.Record.decode((byte[]) call("HGET", p + "jobs", "long"));
        assertThat(stored.state()).isEqualTo(JobState.SCHEDULED);
        dev.delayq.internal.Record overlaid = stored.withOverlay((byte[]) call("HGET", p + "jobs", "\0long"));
        assertThat(overlaid.state()).isEqualTo(JobState.DONE);
        assertThat(overlaid.finishedAt()).isEqualTo(l.finishedAtMillis());
        assertThat(overlaid.attempt()).isEqualTo(1);
        assertThat(l.state()).isEqualTo(JobState.DONE);
        assertThat(l.finishedAtMillis()).isBetween(before, t.redisNow()).isEqualTo(q.get("short").orElseThrow().finishedAtMillis());
        assertThat(l.payloadUtf8()).isEqualTo("L".repeat(300));
        assertThat(q.inspector().list(JobState.DONE, 0, 10)).extracting(JobInfo::id).containsExactlyInAnyOrder("long", "short");
        assertThat(q.inspector().check().problems()).isEmpty();
        assertThat(q.inspector().purge(Duration.ZERO).done()).isEqualTo(2);
        assertThat((Long) call("HLEN", p + "jobs")).isZero();
        assertThat(entries()).isEmpty();
    }

    @Test
    void aDoneOverlayOverADamagedRecordIsStillPurgedWithItsEntry() {
        q.enqueueAll(List.of(Job.builder().id("long").payload("L".repeat(300)).build(), job("short")));
        complete(claimAll(2));
        call("HSET", p + "jobs", "long", "\u0007damaged");
        assertThat(q.get("long").orElseThrow().state()).isEqualTo(JobState.DONE);
        assertThat(q.inspector().purge(Duration.ZERO).done()).isEqualTo(2);
        assertThat((Long) call("HLEN", p + "jobs")).isZero();
        assertThat(entries()).isEmpty();
        assertThat(q.inspector().stats().done()).isZero();
    }

    /** Rewrites the jobs of the first done batch entry as an earlier version kept them: state 3, a done-set entry each. */
    private void asEarlierVersionsKeptThem() {
        call("EVAL", """
                local m = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
                local n = 0
                for id in string.gmatch(m[1], '%z([^%z]+)') do
                  local ov = redis.call('HGET', KEYS[2], '\\0' .. id)
                  if ov then
                    redis.call('HSET', KEYS[2], '\\0' .. id, string.char(string.byte(ov, 1) - 2) .. string.sub(ov, 8))
                  else
                    local r = redis.call('HGET', KEYS[2], id)
                    redis.call('HSET', KEYS[2], id, string.char(string.byte(r, 1) - 2) .. string.sub(r, 8))
                  end
                  redis.call('ZADD', KEYS[3], m[2], id)
                  n = n + 1
                end
                redis.call('ZREM', KEYS[1], m[1])
                redis.call('HINCRBY', KEYS[4], 'done_batched', -n)
                """, "4", p + "done:batches", p + "jobs", p + "done", p + "meta");
    }

    @Test
    void jobsKeptByEarlierVersionsAreReadWithTheBatchedOnesInFinishOrder() {
        q.enqueueAll(List.of(job("e1"), Job.builder().id("e2").payload("L".repeat(300)).build()));
        complete(claimAll(2));
        asEarlierVersionsKeptThem();
        long mid = t.redisNow();
        t.awaitRedisTime(mid);
        q.enqueueAll(List.of(job("e3"), job("e4")));
        complete(claimAll(2));
        assertThat((Long) call("ZCARD", p + "done")).isEqualTo(2);
        assertThat(entries()).containsExactly(List.of("e3", "e4"));
        assertThat(q.inspector().stats().done()).isEqualTo(4);
        List<JobInfo> all = q.inspector().list(JobState.DONE, 0, 10);
        assertThat(all.subList(0, 2)).extracting(JobInfo::id).containsExactlyInAnyOrder("e1", "e2");
        assertThat(all.subList(2, 4)).extracting(JobInfo::id).containsExactly("e3", "e4");
        assertThat(all).extracting(JobInfo::finishedAtMillis).isSorted();
        assertThat(q.inspector().list(JobState.DONE, 1, 2)).extracting(JobInfo::id).containsExactly(all.get(1).id(), "e3");
        JobInfo e2 = q.get("e2").orElseThrow();
        assertThat(e2.state()).isEqualTo(JobState.DONE);
        assertThat(e2.finishedAtMillis()).isEqualTo(all.stream().filter(j -> j.id().equals("e2")).findFirst().orElseThrow().finishedAtMillis());
        assertThat(e2.payloadUtf8()).isEqualTo("L".repeat(300));
        assertThat(q.inspector().check().problems()).isEmpty();
        assertThat(q.inspector().delete("e1").changed()).isTrue();
        assertThat((Long) call("ZCARD", p + "done")).isEqualTo(1);
        assertThat(q.inspector().stats().done()).isEqualTo(3);
        assertThat(q.inspector().purge(Duration.ZERO).done()).isEqualTo(3);
        assertThat(q.inspector().stats().done()).isZero();
        assertThat((Long) call("HLEN", p + "jobs")).isZero();
    }

    @Test
    void checkReportsADoneJobThatNoEntryListsAndAnEntryListingAJobNotDoneThen() {
        q.enqueueAll(List.of(job("c1"), job("c2")));
        complete(claimAll(2));
        // The entry rewritten without c1, and listing c2 at another time.
        call("EVAL", """
                local m = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
                redis.call('ZREM', KEYS[1], m[1])
                redis.call('ZADD', KEYS[1], m[2] + 1, (string.gsub(m[1], '%zc1', '')))
                """, "1", p + "done:batches");
        assertThat(entries()).containsExactly(List.of("c2"));
        assertThat(q.inspector().check().problems()).containsExactlyInAnyOrder(
                "c1: state done but missing from the done index",
                "c2: state done but missing from the done index",
                "c2: in a done batch entry but its record is done at another finish time");
        assertThat(q.inspector().delete("c1").changed()).isTrue();
        assertThat(q.inspector().delete("c2").changed()).isTrue();
        call("DEL", p + "done:batches", p + "meta");
    }

    @Test
    void aListFromAnOffsetCountsTheIdsBeforeItInTheEntriesAcrossScriptCalls() {
        // 10,050 entries of one id each before the jobs (no records behind them: only counted, never read): eleven
        // calls skip them, 1,000 entries at most each.
        call("EVAL", """
                for i = 1, 10050 do redis.call('ZADD', KEYS[1], i, 't' .. i .. '\\0skipped-' .. i) end
                """, "1", p + "done:batches");
        q.enqueueAll(List.of(job("r1"), job("r2"), job("r3")));
        complete(claimAll(3));
        assertThat(q.inspector().list(JobState.DONE, 10_050, 2)).extracting(JobInfo::id).containsExactly("r1", "r2");
        assertThat(q.inspector().list(JobState.DONE, 10_051, 5)).extracting(JobInfo::id).containsExactly("r2", "r3");
        assertThat(q.inspector().list(JobState.DONE, 10_053, 5)).isEmpty();
        call("ZREMRANGEBYRANK", p + "done:batches", "0", "10049");
        assertThat(q.inspector().list(JobState.DONE, 0, 5)).extracting(JobInfo::id).containsExactly("r1", "r2", "r3");
    }
}
