package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.testkit.RedisExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * claim and complete read a usual record with Lua patterns instead of decoding it (record.lua, "Fast paths"). These
 * tests hold them to the general path: every kind of record the enqueue writes comes out of a claim and a complete
 * with every field intact, and every record the fast paths cannot read is still judged by the full decode (moved
 * aside when it cannot be decoded), never leased or completed half-read.
 */
class RecordFastPathTest {
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
        q = t.queue(dq, "fp");
        jobs = REDIS.prefix() + ":{fp}:jobs";
    }

    @AfterEach
    void close() {
        t.close();
    }

    /** Sets the record of job {@code id} to these bytes (each 0 – 255). */
    private void record(String id, int... bytes) {
        StringJoiner json = new StringJoiner(",", "[", "]");
        for (int b : bytes) {
            json.add(Integer.toString(b));
        }
        REDIS.server().call("EVAL", "redis.call('HSET', KEYS[1], ARGV[1], string.char(unpack(cjson.decode(ARGV[2]))))", "1",
                jobs, id, json.toString());
    }

    @Test
    void everyKindOfRecordIsLeasedAndCompletedWithEveryFieldIntact() {
        Map<String, Job> sent = new HashMap<>();
        List<Job> batch = new ArrayList<>();
        String longName = "n".repeat(128); // the longest name: its length takes a two-byte varint
        String[] names = {null, "send-email", longName};
        byte[][] payloads = {new byte[0], "x".getBytes(StandardCharsets.UTF_8), "é".repeat(100).getBytes(StandardCharsets.UTF_8),
                new byte[20_000]};
        payloads[3][19_999] = (byte) 0xff;
        int i = 0;
        for (String name : names) {
            for (int max : new int[] {0, 3, 200}) {
                for (int priority : new int[] {0, 7}) {
                    for (Duration timeout : new Duration[] {null, Duration.ofSeconds(7)}) {
                        for (boolean dedupe : new boolean[] {false, true}) {
                            byte[] payload = payloads[i % payloads.length];
                            Job.Builder b = Job.builder().id("j" + i).name(name).payload(payload);
                            if (max > 0) {
                                b.maxAttempts(max);
                            }
                            if (priority > 0) {
                                b.priority(priority);
                            }
                            if (timeout != null) {
                                b.timeout(timeout);
                            }
                            if (dedupe) {
                                b.dedupe("key-" + i, Duration.ofMillis(1));
                            }
                            if (i % 3 == 0) { // a trace context: a two-byte extension mask
                                b.traceContext(TraceContextTest.TP, i % 2 == 0 ? TraceContextTest.TS : null);
                            }
                            Job job = b.build();
                            sent.put(job.id(), job);
                            batch.add(job);
                            i++;
                        }
                    }
                }
            }
        }
        q.enqueueAll(batch);
        List<ClaimedJob> claimed = new ArrayList<>();
        while (claimed.size() < sent.size()) {
            List<ClaimedJob> got = q.leases().claim(ClaimOptions.of(50, Duration.ofMinutes(1))).jobs();
            assertThat(got).as("a claim while %d jobs are due", sent.size() - claimed.size()).isNotEmpty();
            claimed.addAll(got);
        }
        Set<Long> tokens = new HashSet<>();
        for (ClaimedJob c : claimed) {
            Job job = sent.get(c.id());
            assertThat(c.attempt()).as(c.id()).isEqualTo(1);
            assertThat(c.name()).as(c.id()).isEqualTo(job.name());
            assertThat(c.payload()).as(c.id()).isEqualTo(job.payload());
            assertThat(c.maxAttempts()).as(c.id()).isEqualTo(job.maxAttempts() > 0 ? job.maxAttempts() : RetryPolicy.defaults().maxAttempts());
            assertThat(c.timeoutMillis()).as(c.id()).isEqualTo(job.timeout() == null ? 0 : job.timeout().toMillis());
            assertThat(c.traceparent()).as(c.id()).isEqualTo(job.traceparent());
            assertThat(c.tracestate()).as(c.id()).isEqualTo(job.tracestate());
            assertThat(c.stalls()).isZero();
            assertThat(c.lastError()).isNull();
            assertThat(tokens.add(c.token())).as("token %d handed out once", c.token()).isTrue();
            JobInfo stored = q.get(c.id()).orElseThrow();
            assertThat(stored.state()).isEqualTo(JobState.PROCESSING);
            assertThat(stored.corrupt()).isFalse();
            assertThat(stored.token()).isEqualTo(c.token());
            assertThat(stored.attempt()).isEqualTo(1);
            assertThat(stored.dueAtMillis()).isEqualTo(c.dueAtMillis());
            assertThat(stored.priority()).as(c.id()).isEqualTo(job.priority());
            assertThat(stored.dedupeKey()).as(c.id()).isEqualTo(job.dedupeKey());
            assertThat(stored.name()).isEqualTo(job.name());
            assertThat(stored.payload()).isEqualTo(job.payload());
        }
        for (ClaimedJob c : claimed) {
            assertThat(q.leases().complete(c.lease())).as(c.id()).isEqualTo(Ack.OK);
            assertThat(q.leases().complete(c.lease())).as("%s completed again", c.id()).isEqualTo(Ack.ALREADY_APPLIED);
            JobInfo done = q.get(c.id()).orElseThrow();
            assertThat(done.state()).isEqualTo(JobState.DONE);
            assertThat(done.name()).isEqualTo(sent.get(c.id()).name());
            assertThat(done.payload()).isEqualTo(sent.get(c.id()).payload());
            assertThat(done.traceparent()).isEqualTo(sent.get(c.id()).traceparent());
            assertThat(done.token()).isEqualTo(c.token());
        }
        // The dedupe keys were released with their jobs (their 1 ms holds have run out): the same keys enqueue again.
        for (Job job : sent.values()) {
            if (job.dedupeKey() != null) {
                assertThat(q.enqueue(Job.builder().id(job.id() + "-again").dedupe(job.dedupeKey(), Duration.ofMillis(1)).build()).created())
                        .as(job.dedupeKey()).isTrue();
            }
        }
        assertThat(q.inspector().stats().processing()).isZero();
        assertThat(q.inspector().check().problems()).isEmpty();
    }

    @Test
    void aLongTracedJobIsLeasedByTheClaimsFastPath() {
        // Only claim's fast path leases a long fresh record by an overlay (the general path rewrites it): a traced job,
        // whose extension mask takes two bytes, takes it too (issue 42).
        Job job = Job.builder().id("traced").payload(new byte[400]).traceContext(TraceContextTest.TP, TraceContextTest.TS).build();
        q.enqueue(job);
        ClaimedJob c = q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1))).jobs().get(0);
        assertThat(REDIS.server().call("HEXISTS", jobs, "\0traced")).hasToString("1");
        assertThat(c.traceparent()).isEqualTo(TraceContextTest.TP);
        assertThat(c.tracestate()).isEqualTo(TraceContextTest.TS);
        assertThat(c.payload()).isEqualTo(job.payload());
        assertThat(q.leases().complete(c.lease())).isEqualTo(Ack.OK);
        JobInfo done = q.get("traced").orElseThrow();
        assertThat(done.state()).isEqualTo(JobState.DONE);
        assertThat(done.traceparent()).isEqualTo(TraceContextTest.TP);
        assertThat(q.inspector().check().problems()).isEmpty();
    }

    @Test
    void tokensOfEveryVarintLengthAreWrittenAndMatchedExactly() {
        // The fast paths compare a token's varint bytes: leases on both sides of each length's edge (1 to 2 bytes at
        // 128, 2 to 3 at 16,384, 3 to 4 at 2,097,152, 4 to 5 at 268,435,456), as earlier versions granted them (claim
        // now grants 8-byte tokens from Redis's clock; a lease granted before an upgrade may still complete after it).
        int n = 0;
        for (long edge : new long[] {128, 16_384, 2_097_152, 268_435_456}) {
            List<Job> batch = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                batch.add(Job.builder().id("t" + n++).payload("p").build());
            }
            q.enqueueAll(batch);
            List<Lease> got = new ArrayList<>();
            long token = edge - 3;
            for (ClaimedJob c : q.leases().claim(ClaimOptions.of(6, Duration.ofMinutes(1))).jobs()) {
                Relet.token(REDIS.server(), jobs, c.id(), token);
                got.add(new Lease(c.id(), token++, c.partition()));
            }
            for (Lease c : got) {
                assertThat(q.get(c.id()).orElseThrow().token()).as("stored token of %s", c.id()).isEqualTo(c.token());
                assertThat(q.leases().complete(new Lease(c.id(), c.token() + 1, c.partition()))).isEqualTo(Ack.STALE);
                assertThat(q.leases().complete(new Lease(c.id(), c.token() - 1, c.partition()))).isEqualTo(Ack.STALE);
                for (long off : new long[] {128, 16_384, 2_097_152}) { // one more in a varint's second, third, fourth byte
                    assertThat(q.leases().complete(new Lease(c.id(), c.token() + off, c.partition()))).isEqualTo(Ack.STALE);
                }
                assertThat(q.leases().complete(c)).as("%s with token %d", c.id(), c.token()).isEqualTo(Ack.OK);
                assertThat(q.get(c.id()).orElseThrow().state()).isEqualTo(JobState.DONE);
            }
        }
        assertThat(q.inspector().check().problems()).isEmpty();
    }

    @Test
    void aCompletionWithAnotherTokenIsRefusedOnTheFastPathToo() {
        q.enqueue(Job.builder().id("a").payload("p").build());
        ClaimedJob c = q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1))).jobs().get(0);
        Lease wrong = new Lease(c.id(), c.token() + 1, c.partition());
        assertThat(q.leases().complete(wrong)).isEqualTo(Ack.STALE);
        Lease bigger = new Lease(c.id(), c.token() + 100_000, c.partition()); // a longer varint than the real token's
        assertThat(q.leases().complete(bigger)).isEqualTo(Ack.STALE);
        assertThat(q.get("a").orElseThrow().state()).isEqualTo(JobState.PROCESSING);
        assertThat(q.leases().complete(c.lease())).isEqualTo(Ack.OK);
    }

    @Test
    void freshLookingRecordsThatCannotBeDecodedAreMovedAsideByTheClaim() {
        // 65: scheduled + created, no extension; 193: the same with extension fields.
        int[][] bad = {
            {65},                                   // nothing after the flags
            {65, 0x81},                             // the sequence runs off the end
            {65, 1},                                // no enqueue time
            {65, 1, 0x80, 0x80},                    // the enqueue time runs off the end
            {193, 1, 1},                            // extension flag but no mask
            {193, 1, 1, 2},                         // max attempts announced, missing
            {193, 1, 1, 8, 5, 'a'},                 // a name of 5 bytes with 1 left
            {193, 1, 1, 16, 1, 'k'},                // a dedupe key without its hold time
            {193, 1, 1, 8, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 1}, // a 10-byte name length
            {65, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 1, 1, 'p'},   // a 10-byte sequence
        };
        List<Job> all = new ArrayList<>();
        for (int i = 0; i < bad.length; i++) {
            all.add(Job.builder().id("bad" + i).payload("b").build());
            all.add(Job.builder().id("good" + i).name("n").maxAttempts(2).payload("g" + i).build());
        }
        q.enqueueAll(all);
        for (int i = 0; i < bad.length; i++) {
            record("bad" + i, bad[i]);
        }
        ClaimBatch b = q.leases().claim(ClaimOptions.of(100, Duration.ofMinutes(1)));
        assertThat(b.jobs()).extracting(ClaimedJob::id).containsExactlyInAnyOrderElementsOf(
                all.stream().map(Job::id).filter(id -> id.startsWith("good")).toList());
        assertThat(b.quarantined()).isEqualTo(bad.length);
        for (int i = 0; i < bad.length; i++) {
            JobInfo info = q.get("bad" + i).orElseThrow();
            assertThat(info.state()).as("bad%d", i).isEqualTo(JobState.DEAD);
            assertThat(info.lastError()).isEqualTo("record cannot be decoded");
        }
        b.jobs().forEach(j -> assertThat(q.leases().complete(j.lease())).isEqualTo(Ack.OK));
        assertThat(q.inspector().check().problems()).isEmpty();
    }

    @Test
    void leasedLookingRecordsThatCannotBeDecodedAreMovedAsideByTheCompletion() {
        // 218: processing + due + token + created + extension, as the claim leases a job.
        int[][] bad = {
            {218, 1, 1, 1},                     // no token
            {218, 1, 1, 1, 1},                  // no mask
            {218, 1, 1, 1, 1, 1},               // attempt announced, missing
            {218, 1, 1, 1, 1, 9, 1, 4, 'a'},    // a name of 4 bytes with 1 left
            {218, 1, 1, 1, 1, 1, 0x81},         // the attempt runs off the end
            {218, 1, 1, 1, 1, 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 1}, // a 10-byte attempt
        };
        List<Job> all = new ArrayList<>();
        for (int i = 0; i < bad.length; i++) {
            all.add(Job.builder().id("bad" + i).payload("b").build());
        }
        q.enqueueAll(all);
        List<ClaimedJob> held = q.leases().claim(ClaimOptions.of(100, Duration.ofMinutes(1))).jobs();
        assertThat(held).hasSize(bad.length);
        for (ClaimedJob c : held) {
            int[] bytes = bad[Integer.parseInt(c.id().substring(3))].clone();
            record(c.id(), bytes); // token 1 where there is one (byte 5): the lease below matches, the tail is wrong
        }
        for (ClaimedJob c : held) {
            assertThat(q.leases().complete(new Lease(c.id(), 1, c.partition()))).as(c.id()).isEqualTo(Ack.STALE);
            assertThat(q.get(c.id()).orElseThrow().state()).isEqualTo(JobState.DEAD);
        }
        assertThat(q.inspector().stats().processing()).isZero();
        assertThat(q.inspector().check().problems()).isEmpty();
    }
}
