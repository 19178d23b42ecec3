package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.internal.Record;
import dev.delayq.internal.queue.RedisQueue;
import dev.delayq.testkit.RedisExtension;
import dev.delayq.testkit.Resp;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One test per script: seed the keys, run the one operation, and assert every key it touched (and that it
 * touched no other), read raw from Redis.
 */
class ScriptKeysTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private TestSupport t;
    private JobQueue q;
    private Resp raw;
    private String p;

    @BeforeEach
    void open() {
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
        q = t.queue(t.client(), "k");
        raw = REDIS.server().connect();
        p = REDIS.prefix() + ":{k}:";
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

    /** The keys of the prefix but the queue's config (its partition count, recorded when the queue is first used). */
    private Set<String> keys() {
        Set<String> out = new TreeSet<>();
        for (Object k : (List<?>) call("KEYS", REDIS.prefix() + ":*")) {
            out.add(new String((byte[]) k, StandardCharsets.UTF_8));
        }
        out.removeIf(k -> k.endsWith("}:config"));
        return out;
    }

    /** The job's record as the scripts see it: with its lease overlay (field "\0" + id, see record.lua) applied. */
    private Record record(String id) {
        Record stored = stored(id);
        byte[] overlay = (byte[]) call("HGET", p + "jobs", "\0" + id);
        return overlay == null ? stored : stored.withOverlay(overlay);
    }

    /** The job's record as stored in its own field. */
    private Record stored(String id) {
        return Record.decode((byte[]) call("HGET", p + "jobs", id));
    }

    private long fields(String key) {
        return (Long) call("HLEN", p + key);
    }

    private List<?> zrange(String key) {
        return (List<?>) call("ZRANGE", p + key, "0", "-1", "WITHSCORES");
    }

    private static String s(Object o) {
        return new String((byte[]) o, StandardCharsets.ISO_8859_1);
    }

    private String meta(String field) {
        Object v = call("HGET", p + "meta", field);
        return v == null ? null : s(v);
    }

    private static String member(long seq, String id) {
        byte[] b = new byte[6];
        for (int i = 5; i >= 0; i--) {
            b[i] = (byte) (seq & 0xff);
            seq >>= 8;
        }
        return new String(b, StandardCharsets.ISO_8859_1) + id;
    }

    @Test
    @SuppressWarnings("unchecked")
    void enqueueWritesRecordDueEntryMetaDedupeKeyAndAnnouncesTheNewHead() throws IOException {
        try (Resp sub = REDIS.server().connect()) {
            sub.call("SUBSCRIBE", p + "wake");
            long before = t.redisNow();
            q.enqueue(Job.builder().id("a").payload("hello").delay(Duration.ofSeconds(60)).maxAttempts(3)
                    .dedupe("key-1", Duration.ofSeconds(100)).build());
            assertThat(keys()).containsExactly(REDIS.prefix() + ":queues", p + "dedupe", p + "due", p + "history", p + "jobs",
                    p + "meta");

            Record r = record("a");
            assertThat(r.state()).isEqualTo(JobState.SCHEDULED);
            assertThat(List.of(r.attempt(), r.maxAttempts(), (int) r.seq())).containsExactly(0, 3, 1);
            assertThat(r.due()).isEqualTo(-1); // while scheduled, the due-set score is the due time
            assertThat(r.token()).isZero();
            assertThat(r.error()).isNull();
            assertThat(r.dedupeKey()).isEqualTo("key-1");
            assertThat(r.holdUntil()).isBetween(before + 100_000, t.redisNow() + 100_000);
            assertThat(r.createdMillis()).isBetween(before / 1000 * 1000, t.redisNow());
            assertThat(new String(r.payload(), StandardCharsets.UTF_8)).isEqualTo("hello");


            List<?> due = zrange("due");
            assertThat(due).hasSize(2);
            assertThat(s(due.get(0))).isEqualTo(member(1, "a"));
            long dueMs = Long.parseLong(s(due.get(1)));
            assertThat(dueMs).isBetween(before + 60_000, t.redisNow() + 60_000 + 1); // now rounded up to the ms

            assertThat(meta("seq")).isEqualTo("1");
            assertThat(meta("enqueued")).isEqualTo("1");
            assertThat(s(call("HGET", p + "dedupe", "key-1"))).isEqualTo("a");
            assertThat(call("ZSCORE", p + "dedupe:holds", "key-1")).as("no end while the job is scheduled").isNull();

            List<Object> msg = (List<Object>) sub.receive();
            assertThat(msg).containsExactly("message", p + "wake", Long.toString(dueMs));

            // A job behind the head is not announced; an earlier one is.
            q.enqueue(Job.builder().id("b").delay(Duration.ofSeconds(120)).build());
            q.enqueue(Job.builder().id("c").delay(Duration.ofSeconds(1)).build());
            List<Object> msg2 = (List<Object>) sub.receive();
            long cDue = q.get("c").orElseThrow().dueAtMillis();
            assertThat(msg2.get(2)).isEqualTo(Long.toString(cDue));
            // A job without options costs a flags byte, its sequence and its enqueue time (whole seconds since 2020).
            q.enqueue(Job.builder().id("plain").payload("hello").delay(Duration.ofHours(2)).build());
            assertThat(record("plain").raw().length).isEqualTo(1 + 1 + 4 + 5);
            q.cancel("a");
            q.cancel("b");
            q.cancel("c");
            q.cancel("plain");
            assertThat(call("HGET", p + "dedupe", "key-1")).as("cancel releases the key").isNull();
        }
    }

    private static dev.delayq.internal.WorkerBeat beat(String id, String... running) {
        List<dev.delayq.internal.WorkerBeat.Run> runs = Arrays.stream(running)
                .map(r -> new dev.delayq.internal.WorkerBeat.Run(r, 1000)).toList();
        return new dev.delayq.internal.WorkerBeat(id, "n-" + id, "h", 42, List.of("k"), 4, 5000, "9.9", runs);
    }

    @Test
    void workerBeatWritesTheRegistryDropsExpiredWorkersAndWorkerGoneRemovesOne() {
        dev.delayq.internal.queue.Partition part = RedisQueue.of(q).partitions().get(0);
        assertThat(keys()).isEmpty();
        long before = t.redisNow();
        long at = part.workerBeat(beat("w1", "a", "b"), 60_000).join();
        assertThat(keys()).containsExactly(p + "workers", p + "workers:info");
        assertThat(zrange("workers")).extracting(ScriptKeysTest::s).containsExactly("w1", Long.toString(at + 60_000));
        assertThat(at).isBetween(before, t.redisNow());
        assertThat(s(call("HGET", p + "workers:info", "w1")))
                .isEqualTo(at + "\n1\nn-w1\nh\n42\nk\n4\n5000\n9.9\n1000\ta\n1000\tb");
        for (String key : List.of("workers", "workers:info")) {
            assertThat((Long) call("PTTL", p + key)).as(key + " lives as long as its latest worker").isBetween(1L, 60_000L);
        }
        WorkerInfo w = q.inspector().workers().get(0);
        assertThat(w).isEqualTo(new WorkerInfo("w1", "n-w1", "h", 42, List.of("k"), 4,
                List.of(new WorkerInfo.RunningJob("a", java.time.Instant.ofEpochMilli(at - 1000)),
                        new WorkerInfo.RunningJob("b", java.time.Instant.ofEpochMilli(at - 1000))),
                java.time.Instant.ofEpochMilli(at - 5000), java.time.Instant.ofEpochMilli(at), "9.9"));

        part.workerBeat(beat("w2"), 1).join(); // expires at once: not listed, and dropped by the next beat
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> t.redisNow() > at + 2);
        assertThat(q.inspector().workers()).extracting(WorkerInfo::id).containsExactly("w1");
        part.workerBeat(beat("w1"), 60_000).join();
        assertThat(zrange("workers")).extracting(ScriptKeysTest::s).first().isEqualTo("w1");
        assertThat(zrange("workers")).hasSize(2);
        assertThat(fields("workers:info")).isEqualTo(1);

        assertThat(part.workerGone("w1").join()).isTrue();
        assertThat(part.workerGone("w1").join()).isFalse();
        assertThat(keys()).as("the last worker gone: nothing left").isEmpty();
    }

    @Test
    void aPartitionedQueueKeepsOneWorkerRegistryUnderItsPlainTag() {
        JobQueue parted = t.queue(t.client(), "kp", 3);
        RedisQueue.of(parted).partitions().get(2).workerBeat(beat("w1"), 60_000).join();
        assertThat(keys()).containsExactly(REDIS.prefix() + ":{kp}:workers", REDIS.prefix() + ":{kp}:workers:info");
        assertThat(parted.inspector().workers()).extracting(WorkerInfo::id).containsExactly("w1");
    }

    @Test
    void claimMovesTheJobFromDueToLeasesWithAFreshToken() {
        q.enqueue(Job.builder().id("a").build());
        ClaimBatch b = q.leases().claim(ClaimOptions.of(5, Duration.ofSeconds(30)));
        assertThat(keys()).containsExactly(REDIS.prefix() + ":queues", p + "history", p + "jobs", p + "leases", p + "meta");
        // A short record is leased in place (a long one by a lease overlay: LeaseOverlayTest).
        assertThat(fields("jobs")).isEqualTo(1);
        Record r = stored("a");
        assertThat(r.state()).isEqualTo(JobState.PROCESSING);
        assertThat(r.attempt()).isEqualTo(1);
        // Tokens count up from Redis's clock in microseconds (a promoted replica cannot grant a lost claim's again).
        assertThat(r.token()).isEqualTo(b.serverTimeMicros());
        assertThat(b.jobs().get(0).lease().token()).isEqualTo(r.token());
        assertThat(r.due()).isEqualTo(b.jobs().get(0).dueAtMillis());
        assertThat(zrange("leases")).extracting(ScriptKeysTest::s).containsExactly("a", Long.toString(b.serverTimeMillis() + 30_000));
        assertThat(meta("fence")).isEqualTo(Long.toString(r.token()));
        assertThat(meta("token")).as("leases granted").isEqualTo("1");
        q.leases().complete(b.jobs().get(0).lease());
    }

    @Test
    void completeMovesTheJobToDoneOrDeletesItWithoutRetention() {
        q.enqueue(Job.builder().id("a").build());
        ClaimedJob j = q.leases().claim(ClaimOptions.of(1, Duration.ofSeconds(30))).jobs().get(0);
        long before = t.redisNow();
        q.leases().complete(j.lease());
        assertThat(keys()).containsExactly(REDIS.prefix() + ":queues", p + "done:batches", p + "history", p + "jobs", p + "meta");
        assertThat(stored("a").state()).isEqualTo(JobState.DONE);
        assertThat(record("a").token()).isEqualTo(j.token());
        // One done batch entry: the token of its first job, then each id behind a zero byte; its score, the finish
        // time, is in the record too.
        List<?> done = zrange("done:batches");
        assertThat(s(done.get(0))).isEqualTo(j.token() + "\0a");
        long finished = Long.parseLong(s(done.get(1)));
        assertThat(finished).isBetween(before, t.redisNow());
        assertThat(record("a").finishedAt()).isEqualTo(finished);
        assertThat(q.get("a").orElseThrow().finishedAtMillis()).isEqualTo(finished);
        assertThat(meta("completed")).isEqualTo("1");
        assertThat(meta("done_batched")).isEqualTo("1");
        assertThat(q.inspector().stats().done()).isEqualTo(1);

        JobQueue noRetention = t.queue(t.client(c -> c.doneRetention(Duration.ZERO)), "n");
        noRetention.enqueue(Job.builder().id("b").build());
        noRetention.leases().complete(noRetention.leases().claim(ClaimOptions.of(1, Duration.ofSeconds(30))).jobs().get(0).lease());
        assertThat(keys()).filteredOn(k -> k.contains("{n}")).containsExactly(REDIS.prefix() + ":{n}:history",
                REDIS.prefix() + ":{n}:meta");
    }

    @Test
    void failReschedulesWithANewSequenceOrMovesToDead() {
        q.enqueue(Job.builder().id("a").maxAttempts(2).build());
        ClaimedJob j = q.leases().claim(ClaimOptions.of(1, Duration.ofSeconds(30))).jobs().get(0);
        FailResult f = q.leases().fail(j.lease(), "boom", true, Duration.ofSeconds(10));
        assertThat(keys()).containsExactly(REDIS.prefix() + ":queues", p + "due", p + "errors", p + "history", p + "jobs",
                p + "meta", p + "retrying");
        // The error history: one field per job that failed, this failure first (attempt:ms:length:summary).
        assertThat(s(call("HGET", p + "errors", "a"))).matches("1:\\d{13}:4:boom");
        assertThat(zrange("due")).extracting(ScriptKeysTest::s).containsExactly(member(2, "a"), Long.toString(f.atMillis()));
        // The retry's entry, scored at its due time: stats counts the job as retrying until then.
        assertThat(zrange("retrying")).extracting(ScriptKeysTest::s).containsExactly("a", Long.toString(f.atMillis()));
        assertThat(fields("jobs")).as("the lease overlay goes when fail rewrites the record").isEqualTo(1);
        Record r = record("a");
        assertThat(r.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(r.seq()).isEqualTo(2);
        assertThat(r.error()).isEqualTo("boom");
        assertThat(r.attempt()).isEqualTo(1);
        assertThat(meta("retried")).isEqualTo("1");

        q.reschedule("a", Duration.ZERO); // due now: ready, no longer retrying
        assertThat(keys()).doesNotContain(p + "retrying");
        ClaimedJob j2 = q.leases().claim(ClaimOptions.of(1, Duration.ofSeconds(30))).jobs().get(0);
        FailResult dead = q.leases().fail(j2.lease(), "boom again", true, Duration.ZERO);
        assertThat(dead.outcome()).isEqualTo(FailResult.Outcome.DEAD);
        assertThat(keys()).containsExactly(REDIS.prefix() + ":queues", p + "dead", p + "errors", p + "history", p + "jobs",
                p + "meta");
        assertThat(s(call("HGET", p + "errors", "a"))).matches("2:\\d{13}:10:boom again1:\\d{13}:4:boom");
        assertThat(zrange("dead")).extracting(ScriptKeysTest::s).containsExactly("a", Long.toString(dead.atMillis()));
        assertThat(record("a").state()).isEqualTo(JobState.DEAD);
        assertThat(meta("dead")).isEqualTo("1");
    }

    @Test
    void aChildWaitsInItsFlowKeysAndItsParentsCompletionReleasesIt() {
        q.enqueue(Job.builder().id("p").build());
        q.enqueue(Job.builder().id("c").after("p").delay(Duration.ofSeconds(60)).build());
        assertThat(keys()).containsExactly(REDIS.prefix() + ":queues", p + "children:p", p + "deps", p + "due", p + "history",
                p + "jobs", p + "meta", p + "results", p + "waiting");
        assertThat(stored("c").state()).isEqualTo(JobState.WAITING);
        // Its parents, kept past its release for its handler's parentResults() (results.lua).
        assertThat(s(call("HGET", p + "results", "\0c"))).isEqualTo("p");
        assertThat(meta("results")).isEqualTo("1");
        assertThat(s(call("HGET", p + "deps", "n\0c"))).isEqualTo("1:0:0:0:d60000");
        assertThat(s(call("HGET", p + "deps", "p\0c"))).isEqualTo("p");
        assertThat((List<?>) call("SMEMBERS", p + "children:p")).extracting(ScriptKeysTest::s).containsExactly(member(2, "c"));
        assertThat(zrange("waiting")).extracting(ScriptKeysTest::s).first().isEqualTo("c");
        assertThat(meta("waiting")).isEqualTo("1");
        assertThat(q.inspector().links("c").orElseThrow().pendingParents()).isEqualTo(1);
        ClaimedJob parent = q.leases().claim(ClaimOptions.of(1, Duration.ofSeconds(30))).jobs().get(0);
        long before = t.redisNow();
        q.leases().complete(parent.lease());
        assertThat(keys()).containsExactly(REDIS.prefix() + ":queues", p + "done:batches", p + "due", p + "history", p + "jobs",
                p + "meta", p + "results");
        assertThat(stored("c").state()).isEqualTo(JobState.SCHEDULED);
        List<?> due = zrange("due");
        assertThat(s(due.get(0))).isEqualTo(member(2, "c"));
        assertThat(Long.parseLong(s(due.get(1)))).isBetween(before + 60_000, t.redisNow() + 60_001);
        assertThat(meta("waiting")).isEqualTo("0");
        assertThat(meta("released")).isEqualTo("1");
        q.cancel("c");
    }

    @Test
    void aRemoteParentHoldsTheLinkAndItsEndWritesANoticeIntoItsOwnOutbox() {
        JobQueue r = t.queue(t.client(), "r");
        String pr = REDIS.prefix() + ":{r}:";
        r.enqueue(Job.builder().id("p").build());
        q.enqueue(Job.builder().id("c").afterIn("r", "p").build());
        // results: the child's list of its parents, for their results (results.lua)
        assertThat(keys()).containsExactly(REDIS.prefix() + ":queues", p + "deps", p + "history", p + "jobs", p + "meta",
                p + "results", p + "waiting", pr + "children:p", pr + "due", pr + "history", pr + "jobs", pr + "meta");
        assertThat(s(call("HGET", p + "deps", "n\0c"))).isEqualTo("1:0:0:0:d0");
        assertThat(s(call("HGET", p + "deps", "p\0c"))).isEmpty();
        String link = s(call("HGET", p + "deps", "r\0c"));
        assertThat(link).endsWith("\1r/p");
        String linkId = link.substring(0, link.indexOf('\1'));
        String m = "\u00ff\0k\0c\0" + linkId + "\0r/p";
        assertThat((List<?>) call("SMEMBERS", pr + "children:p")).extracting(ScriptKeysTest::s).containsExactly(m);
        assertThat(stored("c").state()).isEqualTo(JobState.WAITING);
        ClaimedJob parent = r.leases().claim(ClaimOptions.of(1, Duration.ofSeconds(30))).jobs().get(0);
        r.leases().complete(parent.lease());
        assertThat(keys()).containsExactly(REDIS.prefix() + ":queues", p + "deps", p + "history", p + "jobs", p + "meta",
                p + "results", p + "waiting", pr + "children:", pr + "done:batches", pr + "history", pr + "jobs", pr + "meta");
        List<?> notice = (List<?>) call("ZRANGE", pr + "children:", "0", "-1");
        assertThat(notice).hasSize(1);
        assertThat(s(notice.get(0))).matches("d\0\\d+\0p\0k\0c\0" + linkId + "\0r/p");
        assertThat(stored("c").state()).isEqualTo(JobState.WAITING);
        q.cancel("c");
        call("DEL", pr + "children:");
    }

    @Test
    void renewOnlyMovesTheLeaseExpiry() {
        q.enqueue(Job.builder().id("a").build());
        ClaimedJob j = q.leases().claim(ClaimOptions.of(1, Duration.ofSeconds(1))).jobs().get(0);
        byte[] before = (byte[]) call("HGET", p + "jobs", "a");
        RenewResult r = q.leases().renew(List.of(j.lease()), Duration.ofSeconds(90));
        assertThat(Arrays.equals(before, (byte[]) call("HGET", p + "jobs", "a"))).isTrue();
        assertThat(zrange("leases")).extracting(ScriptKeysTest::s).containsExactly("a", Long.toString(r.leaseUntilMillis()));
        assertThat(keys()).containsExactly(REDIS.prefix() + ":queues", p + "history", p + "jobs", p + "leases", p + "meta");
        q.leases().complete(j.lease());
    }

    @Test
    void releaseReturnsTheJobAtItsOriginalDueTimeWithTheAttemptUncounted() {
        q.enqueue(Job.builder().id("a").build());
        ClaimedJob j = q.leases().claim(ClaimOptions.of(1, Duration.ofSeconds(30))).jobs().get(0);
        q.leases().release(List.of(j.lease()));
        assertThat(keys()).containsExactly(REDIS.prefix() + ":queues", p + "due", p + "history", p + "jobs", p + "meta");
        assertThat(zrange("due")).extracting(ScriptKeysTest::s).containsExactly(member(2, "a"), Long.toString(j.dueAtMillis()));
        assertThat(record("a").attempt()).isZero();
        assertThat(record("a").state()).isEqualTo(JobState.SCHEDULED);
        q.cancel("a");
    }

    @Test
    void recoverMovesExpiredLeasesBackCountingAStallNotAnAttempt() {
        q.enqueue(Job.builder().id("a").build());
        ClaimedJob j = q.leases().claim(ClaimOptions.of(1, Duration.ofMillis(20))).jobs().get(0);
        t.awaitRedisTime(j.leaseUntilMillis());
        RetryPolicy policy = RetryPolicy.builder().base(Duration.ofSeconds(5)).cap(Duration.ofSeconds(5)).build();
        long before = t.redisNow();
        assertThat(q.leases().recover(10, policy).recovered()).isEqualTo(1);
        assertThat(keys()).containsExactly(REDIS.prefix() + ":queues", p + "due", p + "history", p + "jobs", p + "meta");
        List<?> due = zrange("due");
        assertThat(s(due.get(0))).isEqualTo(member(2, "a"));
        assertThat(Long.parseLong(s(due.get(1)))).isBetween(before + 5000, t.redisNow() + 5000 + 1); // now rounded up
        Record r = record("a");
        assertThat(r.attempt()).isZero();
        assertThat(r.stalls()).isEqualTo(1);
        assertThat(r.error()).isEqualTo("lease expired (stall 1 of at most 5)");
        assertThat(meta("recovered")).isEqualTo("1");
        q.cancel("a");
    }

    @Test
    void cancelDeletesRecordAndDueEntry() {
        q.enqueue(Job.builder().id("a").delay(Duration.ofHours(1)).build());
        q.cancel("a");
        assertThat(keys()).containsExactly(REDIS.prefix() + ":queues", p + "history", p + "meta");
        assertThat(meta("cancelled")).isEqualTo("1");
    }

    /** cancel_by_dedupe.lua: the job holding the key goes, its record, due entry and dedupe key with it. */
    @Test
    void cancelByDedupeKeyDeletesTheHolderAndReleasesItsKey() {
        q.enqueue(Job.builder().id("a").delay(Duration.ofHours(1)).dedupe("dk", Duration.ofHours(1)).build());
        assertThat(keys()).contains(p + "dedupe");
        ChangeResult r = q.cancelByDedupeKey("dk");
        assertThat(r.status()).isEqualTo(ChangeResult.Status.CHANGED);
        assertThat(keys()).containsExactly(REDIS.prefix() + ":queues", p + "history", p + "meta");
        assertThat(meta("cancelled")).isEqualTo("1");
    }

    /**
     * enqueue.lua in debounce mode: the holder's record is rewritten under its id with a new sequence, its due entry
     * moves from the due set to the priority set; the new id gets no record, the dedupe key still names the holder.
     */
    @Test
    void aDebounceReplaceRewritesTheHoldersRecordAndMovesItsDueEntry() {
        q.enqueue(Job.builder().id("a").delay(Duration.ofHours(1)).dedupe("dk", null).dedupeMode(DedupeMode.DEBOUNCE).build());
        long seqBefore = stored("a").seq();
        Set<String> before = keys();
        EnqueueResult r = q.enqueue(Job.builder().id("b").payload("new").priority(4).dedupe("dk", Duration.ofHours(2))
                .dedupeMode(DedupeMode.DEBOUNCE).build());
        assertThat(r.replaced()).isTrue();
        Set<String> after = new TreeSet<>(before);
        after.remove(p + "due");
        after.add(p + "due:prio");
        assertThat(keys()).as("the due entry moved to the priority set").isEqualTo(after);
        Record rec = stored("a");
        assertThat(rec.seq()).isGreaterThan(seqBefore);
        assertThat(new String(rec.payload(), StandardCharsets.UTF_8)).isEqualTo("new");
        assertThat(rec.priority()).isEqualTo(4);
        assertThat(rec.holdUntil()).isPositive();
        assertThat(zrange("due:prio")).hasSize(2);
        assertThat(s(zrange("due:prio").get(0))).isEqualTo(member(rec.seq(), "a"));
        assertThat(call("HGET", p + "jobs", "b")).isNull();
        assertThat(s(call("HGET", p + "dedupe", "dk"))).isEqualTo("a");
        assertThat(zrange("dedupe:holds")).isEmpty();
        assertThat(meta("enqueued")).isEqualTo("1");
    }

    /** reschedule_by_dedupe.lua: the holder's due entry moves (a new sequence), nothing else; get_by_dedupe reads only. */
    @Test
    void rescheduleByDedupeKeyMovesTheHoldersDueEntryAndGetByDedupeKeyWritesNothing() {
        q.enqueue(Job.builder().id("a").delay(Duration.ofHours(1)).dedupe("dk", Duration.ofHours(1)).build());
        Set<String> before = keys();
        long seqBefore = stored("a").seq();
        ChangeResult r = q.rescheduleByDedupeKey("dk", Duration.ofHours(3));
        assertThat(r.id()).isEqualTo("a");
        assertThat(keys()).isEqualTo(before);
        long seq = stored("a").seq();
        assertThat(seq).isGreaterThan(seqBefore);
        assertThat(zrange("due")).hasSize(2);
        assertThat(s(zrange("due").get(0))).isEqualTo(member(seq, "a"));
        assertThat(s(zrange("due").get(1))).isEqualTo(Long.toString(r.atMillis()));
        List<String> due = zrange("due").stream().map(ScriptKeysTest::s).toList();
        assertThat(q.getByDedupeKey("dk").orElseThrow().id()).isEqualTo("a");
        assertThat(keys()).isEqualTo(before);
        assertThat(zrange("due").stream().map(ScriptKeysTest::s).toList()).isEqualTo(due);
    }

    /** delete.lua: a done job's record and done entry go; cancel.lua refuses it and writes nothing. */
    @Test
    void deleteDeletesADoneJobsRecordAndDoneEntryWhichCancelRefuses() {
        q.enqueue(Job.builder().id("a").build());
        ClaimedJob j = q.leases().claim(ClaimOptions.of(1, Duration.ofSeconds(30))).jobs().get(0);
        q.leases().complete(j.lease());
        Set<String> before = keys();
        assertThat(q.cancel("a").status()).isEqualTo(ChangeResult.Status.WRONG_STATE);
        assertThat(keys()).isEqualTo(before);
        assertThat(q.inspector().delete("a").status()).isEqualTo(ChangeResult.Status.CHANGED);
        assertThat(fields("jobs")).isZero();
        assertThat(keys()).doesNotContain(p + "done", p + "done:batches");
        assertThat(meta("deleted")).isEqualTo("1");
    }

    /** retry_dead.lua and retry_dead_all.lua: a dead job's dead entry becomes a due entry, its record scheduled. */
    @Test
    void retryDeadMovesDeadJobsBackToTheDueSet() {
        q.enqueueAll(List.of(Job.builder().id("a").maxAttempts(1).build(), Job.builder().id("b").maxAttempts(1).build()));
        for (ClaimedJob j : q.leases().claim(ClaimOptions.of(2, Duration.ofSeconds(30))).jobs()) {
            q.leases().fail(j.lease(), "boom", false, Duration.ZERO);
        }
        assertThat(zrange("dead")).hasSize(4);
        assertThat(q.inspector().retryDead("a").status()).isEqualTo(ChangeResult.Status.CHANGED);
        assertThat(zrange("dead")).hasSize(2);
        assertThat(record("a").state()).isEqualTo(JobState.SCHEDULED);
        assertThat(q.inspector().retryAllDead()).isEqualTo(1);
        assertThat(keys()).doesNotContain(p + "dead");
        assertThat(zrange("due")).hasSize(4);
        assertThat(record("b").state()).isEqualTo(JobState.SCHEDULED);
    }

    /** pause.lua and resume.lua: the meta hash's paused field only. */
    @Test
    void pauseAndResumeWriteTheMetaHashOnly() {
        assertThat(q.inspector().pause()).isTrue();
        assertThat(keys()).containsExactly(p + "meta");
        assertThat(meta("paused")).isEqualTo("1");
        assertThat(q.inspector().pause()).isFalse();
        assertThat(q.inspector().resume()).isTrue();
        assertThat(meta("paused")).isNull();
        assertThat(q.inspector().resume()).isFalse();
    }

    @Test
    void purgeTakesItsLockRenewsItThroughThePassAndReleasesItWhenNothingIsLeft() {
        q.enqueueAll(List.of(Job.builder().id("a").build(), Job.builder().id("b").build()));
        q.leases().completeAllAsync(q.leases().claim(ClaimOptions.of(2, Duration.ofSeconds(30))).jobs().stream()
                .map(ClaimedJob::lease).toList()).join();
        dev.delayq.internal.queue.Partition rq = RedisQueue.of(q).partitions().get(0);
        // A step of one job out of two: it hit its limit, so the pass goes on and holds the lock.
        dev.delayq.internal.ops.Purge.Step step = rq.purgeStep(0, 0, 1, 60_000, "worker-1");
        assertThat(step.done()).isEqualTo(1);
        assertThat(step.more()).isTrue();
        assertThat(keys()).containsExactly(REDIS.prefix() + ":queues", p + "done:batches", p + "history", p + "jobs",
                p + "lock:purge", p + "meta");
        assertThat(s(call("GET", p + "lock:purge"))).isEqualTo("worker-1");
        assertThat(meta("keep_done")).isEqualTo("0");
        assertThat(meta("keep_dead")).isEqualTo("0");
        dev.delayq.internal.ops.Purge.Step locked = rq.purgeStep(0, 0, 1, 60_000, "worker-2");
        assertThat(locked.lockedForMs()).isBetween(1L, 60_000L);
        assertThat(locked.done()).isZero();
        // The holder's next step renews the lock (another owner's would be refused), and the step that finds nothing
        // more releases it: the pass is over.
        call("PEXPIRE", p + "lock:purge", "5000");
        step = rq.purgeStep(0, 0, 1, 60_000, "worker-1");
        assertThat(step.done()).isEqualTo(1);
        assertThat((Long) call("PTTL", p + "lock:purge")).isGreaterThan(5_000L);
        step = rq.purgeStep(0, 0, 1, 60_000, "worker-1");
        assertThat(step.more()).isFalse();
        assertThat(keys()).containsExactly(REDIS.prefix() + ":queues", p + "history", p + "meta");
    }

    @Test
    void anIdleNamedClaimerBecomesTheWakerAndOthersAreCoveredUntilItGoesStale() {
        long before = t.redisNow();
        q.enqueue(Job.builder().id("soon").delay(Duration.ofMillis(400)).build());
        q.enqueue(Job.builder().id("in-an-hour").delay(Duration.ofHours(1)).build());
        ClaimOptions a = ClaimOptions.of(5, Duration.ofSeconds(30)).withWorker("worker-a", Duration.ofMillis(200));
        ClaimOptions b = ClaimOptions.of(5, Duration.ofSeconds(30)).withWorker("worker-b", Duration.ofMillis(200));
        ClaimBatch first = q.leases().claim(a);
        assertThat(first.jobs()).isEmpty();
        assertThat(first.covered()).isFalse();
        assertThat(meta("waker")).isEqualTo("worker-a");
        assertThat(meta("wake_at")).isEqualTo(Long.toString(first.nextDueMillis()));
        ClaimBatch second = q.leases().claim(b);
        if (second.serverTimeMillis() <= first.nextDueMillis() + 100) {
            assertThat(second.covered()).isTrue(); // worker-a promised to claim at the due time
            assertThat(meta("waker")).isEqualTo("worker-a");
        }
        // worker-a never comes: half a stand-by after the due time its promise is stale and worker-b takes over.
        t.awaitRedisTime(first.nextDueMillis() + 100 + 1);
        ClaimBatch third = q.leases().claim(b);
        assertThat(third.jobs()).extracting(ClaimedJob::id).containsExactly("soon");
        assertThat(third.covered()).isFalse();
        assertThat(meta("waker")).isEqualTo("worker-b");
        assertThat(meta("wake_at")).isEqualTo(Long.toString(third.nextDueMillis()));
        q.leases().complete(third.jobs().get(0).lease());
        q.cancel("in-an-hour");
    }

    @Test
    @SuppressWarnings("unchecked")
    void aWakerThatFillsUpGivesUpItsPromiseAndWakesTheOthers() throws IOException {
        q.enqueueAll(java.util.List.of(Job.builder().id("x1").build(), Job.builder().id("x2").build(),
                Job.builder().id("later").delay(Duration.ofHours(1)).build()));
        ClaimOptions a = ClaimOptions.of(5, Duration.ofSeconds(30)).withWorker("worker-a", Duration.ofMillis(200));
        List<ClaimedJob> jobs = new java.util.ArrayList<>(q.leases().claim(a).jobs()); // 2 of 5: worker-a waits for "later"
        assertThat(meta("waker")).isEqualTo("worker-a");
        q.enqueue(Job.builder().id("x3").build());
        try (Resp sub = REDIS.server().connect()) {
            sub.call("SUBSCRIBE", p + "wake");
            jobs.addAll(q.leases().claim(a.withMax(1)).jobs()); // full: the promise goes
            List<Object> msg = (List<Object>) sub.receive();
            assertThat(msg).containsExactly("message", p + "wake", "0");
        }
        assertThat(meta("waker")).isNull();
        assertThat(meta("wake_at")).isNull();
        jobs.forEach(j -> q.leases().complete(j.lease()));
        q.cancel("later");
    }

    @Test
    void settingsWriteTheMetaHashOnlyAndProgressItsHashOnly() {
        q.inspector().limits(Limits.rate(5, Duration.ofSeconds(1)).concurrency(2));
        assertThat(keys()).containsExactly(p + "meta");
        assertThat(List.of(meta("rate_n"), meta("rate_ms"), meta("concurrency"))).containsExactly("5", "1000", "2");
        q.inspector().limits(Limits.none());
        assertThat(List.of(String.valueOf(meta("rate_n")), String.valueOf(meta("concurrency")))).containsExactly("null", "null");
        q.enqueue(Job.builder().id("a").build());
        ClaimedJob j = q.leases().claim(ClaimOptions.of(1, Duration.ofSeconds(30))).jobs().get(0);
        java.util.Set<String> before = keys();
        assertThat(meta("progress")).isNull(); // until a handler reports progress, complete does not clear any
        assertThat(q.leases().progressAsync(j.lease(), "50").join()).isEqualTo(Ack.OK);
        java.util.Set<String> after = keys();
        after.removeAll(before);
        assertThat(after).containsExactly(p + "progress");
        assertThat(meta("progress")).isEqualTo("1");
        q.leases().complete(j.lease());
        assertThat(keys()).doesNotContain(p + "progress");
    }

    /**
     * schedule.lua advancing a schedule: the schedule's field replaced, the tick jobs written as enqueue writes them
     * (record, due entry, sequence, totals, history) and the new head announced; an upsert's change also on the
     * schedules channel; a removal cancels the pending tick it names.
     */
    @Test
    @SuppressWarnings("unchecked")
    void scheduleReplacesTheScheduleAndEnqueuesItsTicksInOneStep() throws IOException {
        try (Resp sub = REDIS.server().connect()) {
            sub.call("SUBSCRIBE", p + "wake");
            try (Resp changes = REDIS.server().connect()) {
                changes.call("SUBSCRIBE", p + "schedules:changed");
                long now = t.redisNow();
                assertThat(q.schedules().upsert(Schedule.every("hb", Duration.ofMinutes(1)).payload("x").maxAttempts(2))).isTrue();
                assertThat(keys()).containsExactly(REDIS.prefix() + ":queues", p + "due", p + "history", p + "jobs", p + "meta",
                        p + "schedules");
                byte[] stored = (byte[]) call("HGET", p + "schedules", "hb");
                long tick = dev.delayq.internal.ops.ScheduleOps.decode("hb", stored).next();
                assertThat(tick % 60_000).as("every 1m ticks on the minute").isZero();
                assertThat(tick).isGreaterThan(now).isLessThanOrEqualTo(t.redisNow() + 60_000);
                Record r = record("hb@" + tick);
                assertThat(r.state()).isEqualTo(JobState.SCHEDULED);
                assertThat(r.name()).isEqualTo("hb");
                assertThat(r.maxAttempts()).isEqualTo(2);
                assertThat(new String(r.payload(), StandardCharsets.UTF_8)).isEqualTo("x");
                List<?> due = zrange("due");
                assertThat(due).hasSize(2);
                assertThat(s(due.get(0))).isEqualTo(member(1, "hb@" + tick));
                assertThat(s(due.get(1))).isEqualTo(Long.toString(tick));
                assertThat(meta("seq")).isEqualTo("1");
                assertThat(meta("enqueued")).isEqualTo("1");
                assertThat((List<Object>) sub.receive()).containsExactly("message", p + "wake", Long.toString(tick));
                assertThat((List<Object>) changes.receive()).containsExactly("message", p + "schedules:changed", "hb");

                assertThat(q.schedules().remove("hb")).isTrue();
                assertThat(keys()).containsExactly(REDIS.prefix() + ":queues", p + "history", p + "meta");
                assertThat(meta("cancelled")).isEqualTo("1");
                assertThat((List<Object>) changes.receive()).containsExactly("message", p + "schedules:changed", "hb");
            }
        }
    }
}
