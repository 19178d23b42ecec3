package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.Script;
import dev.delayq.testkit.RedisExtension;
import dev.delayq.testkit.Resp;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Atomic or nothing, for every script: fed the worst arguments (malformed, out of range, the extremes the Java side
 * accepts), a script either does all of its work or none of it. Redis does not roll a script back, so each one checks
 * its arguments before its first write; this test sends them raw, past the Java checks, and compares every key of the
 * queue before and after.
 */
class ScriptArgumentsTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private TestSupport t;
    private JobQueue q;
    private Keys k;
    private Resp raw;

    @BeforeEach
    void open() throws IOException {
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
        q = t.queue(t.client(), "args");
        k = new Keys(REDIS.prefix(), "args");
        raw = REDIS.server().connect();
        // Jobs in every state, so that a stray write anywhere shows.
        q.enqueueAll(List.of(Job.builder().id("s").delay(Duration.ofHours(1)).dedupe("dk", Duration.ofHours(1)).build(),
                Job.builder().id("p").build(), Job.builder().id("d").build()));
        List<ClaimedJob> claimed = q.leases().claim(ClaimOptions.of(2, Duration.ofMinutes(5))).jobs();
        q.leases().fail(claimed.get(1).lease(), "no", false, Duration.ZERO);
    }

    @AfterEach
    void close() throws IOException {
        raw.close();
        t.close();
    }

    /** Every key of the prefix with its DUMP: equal snapshots mean nothing was written. */
    private Map<String, String> snapshot() throws IOException {
        Map<String, String> out = new TreeMap<>();
        for (Object key : (List<?>) raw.callRaw("KEYS", REDIS.prefix() + ":*")) {
            String name = new String((byte[]) key, StandardCharsets.ISO_8859_1);
            out.put(name, Arrays.toString((byte[]) raw.callRaw("DUMP", name)));
        }
        return out;
    }

    private static String s(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    /** Runs the script by EVAL with raw arguments; returns its reply, or the error reply's message. */
    private Object eval(Script script, List<byte[]> keys, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add("EVAL");
        cmd.add(new String(script.source(), StandardCharsets.UTF_8));
        cmd.add(Integer.toString(keys.size()));
        keys.forEach(key -> cmd.add(s(key)));
        cmd.addAll(Arrays.asList(args));
        try {
            return raw.callRaw(cmd.toArray(new String[0]));
        } catch (Resp.ErrorReply e) {
            return e.getMessage();
        }
    }

    private void refusedWithoutWriting(Script script, List<byte[]> keys, String... args) throws IOException {
        Map<String, String> before = snapshot();
        Object reply = eval(script, keys, args);
        assertThat(snapshot()).as("keys after %s %s (reply %s)", script, Arrays.toString(args), reply).isEqualTo(before);
        if (reply instanceof List<?> l && !l.isEmpty() && l.get(0) instanceof Long code) {
            assertThat(code).as("reply of %s %s", script, Arrays.toString(args)).isIn(-5L, -6L);
        } else {
            assertThat(reply).as("reply of %s %s: a refusal of the script's own, not an error", script, Arrays.toString(args))
                    .isInstanceOf(List.class);
        }
    }

    /**
     * schedule.lua: malformed arguments, a stale expected value (compare-and-set), a change not yet due and a previous
     * tick still running (no overlap) all leave every key as it was.
     */
    @Test
    void scheduleWritesNothingUnlessItsArgumentsAndItsExpectedStateHold() throws IOException {
        List<byte[]> keys = List.of(k.schedules(), k.jobs(), k.due(), k.meta(), k.history(), k.prio(), k.events(), k.dedupe(),
                k.dedupeHolds(), k.retrying(), k.schedulesPaused(), k.errors());
        String ch = s(k.wakeChannel());
        String sc = s(k.schedulesChannel());
        assertThat(eval(Script.SCHEDULE, keys, ch, sc, "s1", "", "v1", "0", "", "", "0", "0", "0")).isEqualTo(List.of(1L, 0L));
        refusedWithoutWriting(Script.SCHEDULE, keys, ch, sc, "s1", "v1", "v2", "0", "", "", "0", "0", "1", "s1@1", "x", "due", "");
        refusedWithoutWriting(Script.SCHEDULE, keys, ch, sc, "s1", "v1", "v2", "0", "", "", "0", "0", "1", "s1@1", "x", "1", "0");
        refusedWithoutWriting(Script.SCHEDULE, keys, ch, sc, "s1", "v1", "v2", "0", "", "", "0", "0", "2", "s1@1", "x", "1", "");
        refusedWithoutWriting(Script.SCHEDULE, keys, ch, sc, "s1", "v1", "v2", "0", "", "", "0", "0", "1", "", "x", "1", "");
        refusedWithoutWriting(Script.SCHEDULE, keys, ch, sc, "", "v1", "v2", "0", "", "", "0", "0", "0");
        refusedWithoutWriting(Script.SCHEDULE, keys, ch, sc, "s1", "v1", "v2", "-1", "", "", "0", "0", "0");
        refusedWithoutWriting(Script.SCHEDULE, keys, ch, sc, "s1", "v1", "v2", "0", "", "", "0", "0", "102");
        refusedWithoutWriting(Script.SCHEDULE, keys, ch, sc, "s1", "v1", "v2", "0", "", "", "2", "0", "0");   // paused before
        refusedWithoutWriting(Script.SCHEDULE, keys, ch, sc, "s1", "v1", "v2", "0", "", "", "0", "", "0");    // paused after
        refusedWithoutWriting(Script.SCHEDULE, keys, ch, sc, "s1", "v1", "", "0", "", "", "0", "1", "0");     // removed paused

        Map<String, String> before = snapshot();
        assertThat(eval(Script.SCHEDULE, keys, ch, sc, "s1", "v0", "v2", "0", "", "", "0", "0", "1", "s1@1", "x", "1", ""))
                .as("stale expected value").isEqualTo(List.of(-4L));
        assertThat(eval(Script.SCHEDULE, keys, ch, sc, "s1", "", "v2", "0", "", "", "0", "0", "0")).as("expected none").isEqualTo(List.of(-4L));
        assertThat(eval(Script.SCHEDULE, keys, ch, sc, "s1", "v1", "v2", "0", "", "", "1", "0", "0"))
                .as("based on a paused schedule, which it is not").isEqualTo(List.of(-4L));
        assertThat(eval(Script.SCHEDULE, keys, ch, sc, "s1", "v1", "v2", "253402300799999", "", "", "0", "0", "1", "s1@1", "x", "1", ""))
                .as("not yet due").asList().first().isEqualTo(0L);
        assertThat(eval(Script.SCHEDULE, keys, ch, sc, "s1", "v1", "v2", "0", "", "s", "0", "0", "1", "s1@1", "x", "1", ""))
                .as("the previous tick's job (s) is scheduled").isEqualTo(List.of(-3L, 1L));
        assertThat(snapshot()).isEqualTo(before);
    }

    @Test
    void enqueueChecksTheWholeBatchBeforeWritingAny() throws IOException {
        List<byte[]> keys = List.of(k.jobs(), k.due(), k.meta(), k.dedupe(), k.dedupeHolds(), k.history(), k.prio(), k.events());
        String ch = s(k.wakeChannel());
        String opts = "0\0\0\0dk2\0" + "99999999999999999999" + "\0\0"; // a TTL no Redis expire would take
        refusedWithoutWriting(Script.ENQUEUE, keys, ch, "2", "ok", "x", "d0", "", "bad", "x", "d0", opts);
        refusedWithoutWriting(Script.ENQUEUE, keys, ch, "2", "ok", "x", "d0", "", "far", "x", "a253402300800000", "");
        refusedWithoutWriting(Script.ENQUEUE, keys, ch, "2", "ok", "x", "d0", "", "nan", "x", "dNaN", "");
        refusedWithoutWriting(Script.ENQUEUE, keys, ch, "2", "ok", "x", "d0", "", "neg", "x", "d-5", "");
        refusedWithoutWriting(Script.ENQUEUE, keys, ch, "2", "ok", "x", "d0", "");              // too few arguments
        refusedWithoutWriting(Script.ENQUEUE, keys, ch, "1", "ok", "x", "d0", "0\0a\0\0\0\0\0"); // max attempts "a"
        refusedWithoutWriting(Script.ENQUEUE, keys, ch, "1", "ok", "x", "d0", "0\0\0\0dk3\0\0\0");   // a key without TTL
        String debounce = "0\0\0\0dk4\0\0\0\0\0\0mode=debounce"; // nine fields and a tag, a key without TTL
        assertThat(eval(Script.ENQUEUE, keys, ch, "1", "h1", "a", "d3600000", debounce)).isEqualTo(List.of());
        // A replace of h1 and then a malformed job: h1 stays as it was.
        refusedWithoutWriting(Script.ENQUEUE, keys, ch, "2", "h2", "b", "d0", debounce, "bad", "x", "d0", opts);
        refusedWithoutWriting(Script.ENQUEUE, keys, ch, "1", "h3", "b", "d0", "0\0\0\0dk4\0\0\0\0\0\0mode=bounce");
        refusedWithoutWriting(Script.ENQUEUE, keys, ch, "1", "h3", "b", "d0", "0\0\0\0dk4\0\0\0\0\0\0speed=1");
        refusedWithoutWriting(Script.ENQUEUE, keys, ch, "1", "h3", "b", "d0", "0\0\0\0\0\0\0\0\0\0mode=debounce"); // no key
        refusedWithoutWriting(Script.ENQUEUE, keys, ch, "1", "h3", "b", "d0", "0\0\0\0dk4\0\0\0\0\0"); // a key without TTL
        refusedWithoutWriting(Script.ENQUEUE, keys, ch, "1", "h3", "b", "d0", "0\0\0\0dk4\0\0\0\0x\0\0mode=debounce");
        // Parents with debounce (a replace would schedule the job past its parents), h1 being a job that exists.
        refusedWithoutWriting(Script.ENQUEUE, keys, ch, "1", "h3", "b", "d0", debounce + "\0after=h1");
    }

    @Test
    void theWorstJobsTheClientAcceptsAreAllOrNothingToo() {
        List<Job> batch = new ArrayList<>();
        for (int i = 0; i < 499; i++) {
            batch.add(Job.builder().id("w" + i).maxAttempts(Bounds.MAX_ATTEMPTS).dedupe("w-" + i, Bounds.MAX_DEDUPE_TTL).build());
        }
        // Accepted by the client (within MAX_SPAN), beyond year 9999 from Redis's now: the whole batch is refused.
        batch.add(Job.builder().id("too-far").delay(Bounds.MAX_SPAN).build());
        long jobsBefore = q.inspector().stats().scheduled();
        assertThatThrownBy(() -> q.enqueueAll(batch)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("beyond year 9999");
        assertThat(q.inspector().stats().scheduled()).isEqualTo(jobsBefore);
        assertThat(q.get("w0")).isEmpty();
        batch.remove(batch.size() - 1);
        assertThat(q.enqueueAll(batch)).allMatch(EnqueueResult::created);
        assertThat(q.get("w498").orElseThrow().maxAttempts()).isEqualTo(Bounds.MAX_ATTEMPTS);
    }

    @Test
    void everyOtherScriptRefusesMalformedArgumentsWithoutWriting() throws IOException {
        String ch = s(k.wakeChannel());
        List<byte[]> claimKeys = List.of(k.due(), k.leases(), k.jobs(), k.meta(), k.dead(), k.dedupe(), k.dedupeHolds(), k.history(),
                k.prio(), k.events(), k.rate(), k.progress());
        List<byte[]> completeKeys = List.of(k.leases(), k.jobs(), k.doneBatches(), k.meta(), k.dedupe(), k.dedupeHolds(), k.history(),
                k.dead(), k.events(), k.progress());
        List<byte[]> failKeys = List.of(k.leases(), k.jobs(), k.due(), k.dead(), k.meta(), k.dedupe(), k.dedupeHolds(),
                k.history(), k.prio(), k.events(), k.progress());
        refusedWithoutWriting(Script.CLAIM, claimKeys, "10", "-1", "0", "10", "1", "1", "7", ch, "5", "", "0", "1000");
        refusedWithoutWriting(Script.CLAIM, claimKeys, "1e9", "1000", "0", "10", "1", "1", "7", ch, "5", "", "0", "1000");
        refusedWithoutWriting(Script.CLAIM, claimKeys, "10", "1000", "0", "10", "1", "1", "7", ch, "5", "", "0", "x");
        refusedWithoutWriting(Script.COMPLETE, completeKeys, "-5", ch, "p", "1");
        refusedWithoutWriting(Script.COMPLETE, completeKeys, "0", ch, "p", "1", "s", "token");
        refusedWithoutWriting(Script.FAIL, failKeys, "p", "1", "err", "maybe", "0", ch, "5");
        refusedWithoutWriting(Script.FAIL, failKeys, "p", "1", "err", "1", "-1", ch, "5");
        refusedWithoutWriting(Script.RENEW, List.of(k.leases(), k.jobs()), "0", "p", "1");
        refusedWithoutWriting(Script.RENEW, List.of(k.leases(), k.jobs()), "1000", "p", "1", "s");
        refusedWithoutWriting(Script.RELEASE, List.of(k.leases(), k.jobs(), k.due(), k.meta(), k.prio(), k.events(), k.progress()),
                ch, "p", "one");
        refusedWithoutWriting(Script.RECOVER, List.of(k.due(), k.leases(), k.jobs(), k.meta(), k.dead(), k.dedupe(), k.dedupeHolds(),
                k.history(), k.prio(), k.events(), k.progress()), "0", "1", "1", "7", ch, "5");
        List<byte[]> rescheduleKeys = List.of(k.due(), k.jobs(), k.meta(), k.prio(), k.events());
        refusedWithoutWriting(Script.RESCHEDULE, rescheduleKeys, "s", "d999999999999999999", ch);
        refusedWithoutWriting(Script.RESCHEDULE, rescheduleKeys, "s", "x", ch);
        List<byte[]> retryKeys = List.of(k.dead(), k.due(), k.jobs(), k.meta(), k.dedupe(), k.dedupeHolds(), k.prio(), k.events());
        refusedWithoutWriting(Script.RETRY_DEAD_ALL, retryKeys, ch, "0", "0");
        refusedWithoutWriting(Script.RETRY_DEAD_ALL, retryKeys, ch, "10", "-1");
        List<byte[]> settingsKeys = List.of(k.meta(), k.rate(), k.events());
        refusedWithoutWriting(Script.SETTINGS, settingsKeys, ch, "rate", "50/0");
        refusedWithoutWriting(Script.SETTINGS, settingsKeys, ch, "concurrency", "10", "speed", "9");
        refusedWithoutWriting(Script.SETTINGS, settingsKeys, ch, "events", "-1");
        refusedWithoutWriting(Script.PROGRESS, List.of(k.jobs(), k.progress(), k.meta(), k.events()), "p", "x", "50");
        List<byte[]> purgeKeys = List.of(k.done(), k.dead(), k.jobs(), k.lock("purge"), k.dedupe(), k.dedupeHolds(),
                k.doneBatches(), k.meta());
        refusedWithoutWriting(Script.PURGE, purgeKeys, "0", "0", "0", "0", "me");
        refusedWithoutWriting(Script.PURGE, purgeKeys, "0", "0", "10", "-1", "me");
        // The read-only scripts refuse too (and write nothing, as always).
        refusedWithoutWriting(Script.LIST_DUE, List.of(k.due(), k.jobs()), "-1", "10", "100");
        refusedWithoutWriting(Script.LIST, List.of(k.dead(), k.jobs()), "0", "0", "100");
        refusedWithoutWriting(Script.LIST_BATCHES, List.of(k.doneBatches(), k.jobs()), "0", "10", "100", "-1", "0");
        refusedWithoutWriting(Script.LIST_BATCHES, List.of(k.doneBatches(), k.jobs()), "0", "10", "100");
        refusedWithoutWriting(Script.CHECK, List.of(k.jobs(), k.due(), k.leases(), k.done(), k.dead(), k.dedupe(), k.dedupeHolds(),
                k.prio(), k.doneBatches()), "elsewhere", "0", "10", "100");
        refusedWithoutWriting(Script.HISTORY, List.of(k.history()), "0");
    }
}
