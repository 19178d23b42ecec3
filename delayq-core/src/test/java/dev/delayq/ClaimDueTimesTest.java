package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.internal.redis.Script;
import dev.delayq.testkit.RedisExtension;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * claim reads the due times of a run of jobs that share one once (claim.lua, {@code due_members}), works a lag bucket
 * out once for lags that share it, and writes a due time's or token's varint without a table (record.lua,
 * {@code varint_string}); the scripts print whole numbers with {@code '%d'} (record.lua, {@code int}). These tests
 * hold each job to its own due time, the claim order to due time then enqueue order (priorities first), and the Lua
 * functions to their definitions, on every edge.
 */
class ClaimDueTimesTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private TestSupport t;
    private DelayQ dq;
    private JobQueue q;

    @BeforeEach
    void open() {
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
        dq = t.client();
        q = t.queue(dq, "runs");
    }

    @AfterEach
    void close() {
        t.close();
    }

    private record Expected(String id, int priority, long due, int seq) {
    }

    @Test
    void runsOfSharedDueTimesAndSingleDueTimesAreClaimedInOrderEachWithItsOwnDueTime() {
        long now = t.redisNow();
        // Lags in the middle of their buckets (12,000 ms lies in bucket 14, 8,192 to 16,383 ms), so that the seconds
        // the test takes cannot move one: the claims count each job in its bucket once.
        long[] lags = {12_000, 24_000, 48_000, 96_000, 192_000, 384_000};
        // Runs of one due time around PROBE (8) and RUN_MIN (16) and longer, pairs, single jobs, runs that a claim's
        // limit cuts, in two priorities and priority 0.
        int[][] groups = { // {priority, size}
            {0, 40}, {0, 3}, {0, 1}, {0, 1}, {0, 2}, {0, 7}, {0, 8}, {0, 9}, {0, 1}, {0, 15}, {0, 16}, {0, 17}, {0, 1},
            {0, 2}, {0, 2}, {0, 120}, {0, 8}, {0, 1}, {5, 20}, {5, 1}, {5, 2}, {5, 30}, {5, 8}, {2, 3}, {2, 1}, {2, 9},
            {1, 10}, {1, 1}, // priority 1: the largest scores (8 bands of 2^48 ms above the due time)
        };
        List<Expected> expected = new ArrayList<>();
        List<Job> jobs = new ArrayList<>();
        int n = 0;
        for (int g = 0; g < groups.length; g++) {
            long due = now - lags[g % lags.length] - g;
            for (int i = 0; i < groups[g][1]; i++) {
                String id = "g" + g + "-" + i;
                expected.add(new Expected(id, groups[g][0], due, 0));
                Job.Builder b = Job.builder().id(id).payload("p").runAt(Instant.ofEpochMilli(due));
                if (groups[g][0] > 0) {
                    b.priority(groups[g][0]);
                }
                jobs.add(b.build());
                n++;
            }
        }
        // Enqueued in an order of their own (alternating from both ends), so that enqueue order within a due time is
        // not the order of the ids.
        List<Job> order = new ArrayList<>();
        for (int lo = 0, hi = jobs.size() - 1; lo <= hi; lo++, hi--) {
            order.add(jobs.get(hi));
            if (lo != hi) {
                order.add(jobs.get(lo));
            }
        }
        Map<String, Integer> seq = new TreeMap<>();
        for (int i = 0; i < order.size(); i++) {
            seq.put(order.get(i).id(), i);
        }
        for (int i = 0; i < order.size(); i += 37) { // several enqueue calls: sequences in call order
            q.enqueueAll(order.subList(i, Math.min(order.size(), i + 37)));
        }
        List<Expected> want = expected.stream()
                .map(e -> new Expected(e.id(), e.priority(), e.due(), seq.get(e.id())))
                .sorted(Comparator.comparingInt((Expected e) -> -e.priority()).thenComparingLong(Expected::due)
                        .thenComparingInt(Expected::seq))
                .toList();

        List<ClaimedJob> claimed = new ArrayList<>();
        int[] sizes = {1, 2, 3, 7, 8, 9, 16, 17, 50, 100, 5, 24};
        for (int c = 0; claimed.size() < n; c++) {
            List<ClaimedJob> got = q.leases().claim(ClaimOptions.of(sizes[c % sizes.length], Duration.ofMinutes(1))).jobs();
            assertThat(got).as("claim %d of %d jobs, %d claimed", c, sizes[c % sizes.length], claimed.size())
                    .hasSize(Math.min(sizes[c % sizes.length], n - claimed.size()));
            claimed.addAll(got);
        }
        assertThat(claimed).extracting(ClaimedJob::id).containsExactlyElementsOf(want.stream().map(Expected::id).toList());
        for (int i = 0; i < n; i++) {
            ClaimedJob c = claimed.get(i);
            assertThat(c.dueAtMillis()).as(c.id()).isEqualTo(want.get(i).due());
            JobInfo stored = q.get(c.id()).orElseThrow();
            assertThat(stored.dueAtMillis()).as("stored due of %s", c.id()).isEqualTo(want.get(i).due());
            assertThat(stored.priority()).isEqualTo(want.get(i).priority());
            assertThat(q.leases().complete(c.lease())).isEqualTo(Ack.OK);
        }
        assertThat(q.inspector().stats().scheduled()).isZero();
        Map<String, Long> buckets = new TreeMap<>();
        List<?> history = (List<?>) REDIS.server().call("HGETALL", REDIS.prefix() + ":{runs}:history");
        for (int i = 0; i < history.size(); i += 2) {
            String field = history.get(i).toString();
            if (field.matches("\\d+:l\\d+")) { // the minutes' slots (the hours' are h<slot>:l<n>, the same claims again)
                buckets.merge(field.substring(field.lastIndexOf(':') + 1), Long.parseLong(history.get(i + 1).toString()), Long::sum);
            }
        }
        Map<String, Long> wantBuckets = new TreeMap<>();
        for (int g = 0; g < groups.length; g++) {
            wantBuckets.merge("l" + (64 - Long.numberOfLeadingZeros(lags[g % lags.length])), (long) groups[g][1], Long::sum);
        }
        assertThat(buckets).as("jobs claimed per lag bucket").isEqualTo(wantBuckets);
        assertThat(q.inspector().check().problems()).isEmpty();
    }

    @Test
    void dueTimesOfEveryVarintLengthAreLeasedExactly() {
        // The varint of a due time (in the leased record, or in the lease overlay of a long record) on both sides of
        // each length's edge that lies in the past: 1 to 2 bytes at 128 ms, ... 5 to 6 at 2^35 ms (1971); today's due
        // times take 6 bytes (up to 2^42 ms, in 2109).
        long[] dues = {0, 127, 128, 16_383, 16_384, 2_097_151, 2_097_152, 268_435_455, 268_435_456, 34_359_738_367L,
            34_359_738_368L, System.currentTimeMillis() - 1_000};
        List<Job> jobs = new ArrayList<>();
        for (long due : dues) {
            jobs.add(Job.builder().id("d" + due).payload("short").runAt(Instant.ofEpochMilli(due)).build());
            jobs.add(Job.builder().id("long" + due).payload("x".repeat(300)).runAt(Instant.ofEpochMilli(due)).build());
        }
        q.enqueueAll(jobs);
        List<ClaimedJob> got = q.leases().claim(ClaimOptions.of(100, Duration.ofMinutes(1))).jobs();
        assertThat(got).hasSize(jobs.size());
        for (ClaimedJob c : got) {
            long due = Long.parseLong(c.id().replaceFirst("^(d|long)", ""));
            assertThat(c.dueAtMillis()).as(c.id()).isEqualTo(due);
            assertThat(q.get(c.id()).orElseThrow().dueAtMillis()).as("stored due of %s", c.id()).isEqualTo(due);
            assertThat(q.leases().complete(c.lease())).isEqualTo(Ack.OK);
        }
        assertThat(q.inspector().check().problems()).isEmpty();
    }

    @Test
    void tokensOfSixToEightVarintBytesAreWrittenAndMatchedExactly() {
        // RecordFastPathTest holds tokens up to five bytes; here six to eight (tokens from Redis's clock in microseconds
        // take eight), up to the largest token the scripts take (2^53). The last edge is past the clock: claim grants
        // those tokens itself (its floor is the last token granted); the others are leases as earlier versions granted.
        int n = 0;
        for (long edge : new long[] {34_359_738_368L, 4_398_046_511_104L, 562_949_953_421_312L, 9_007_199_254_740_000L}) {
            boolean pastClock = edge > 2_000_000_000_000_000L;
            if (pastClock) {
                REDIS.server().call("HSET", REDIS.prefix() + ":{runs}:meta", "fence", Long.toString(edge - 3));
            }
            List<Job> batch = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                batch.add(Job.builder().id("t" + n++).payload(i % 2 == 0 ? "p" : "y".repeat(300)).build());
            }
            q.enqueueAll(batch);
            List<Lease> got = new ArrayList<>();
            long token = edge - 2;
            for (ClaimedJob c : q.leases().claim(ClaimOptions.of(5, Duration.ofMinutes(1))).jobs()) {
                if (!pastClock) {
                    Relet.token(REDIS.server(), REDIS.prefix() + ":{runs}:jobs", c.id(), token);
                }
                got.add(pastClock ? c.lease() : new Lease(c.id(), token, c.partition()));
                token++;
            }
            assertThat(got).extracting(Lease::token).as("around %d", edge)
                    .containsExactlyInAnyOrder(edge - 2, edge - 1, edge, edge + 1, edge + 2);
            for (Lease c : got) {
                assertThat(q.get(c.id()).orElseThrow().token()).as("stored token of %s", c.id()).isEqualTo(c.token());
                assertThat(q.leases().complete(new Lease(c.id(), c.token() + 1, c.partition()))).isEqualTo(Ack.STALE);
                assertThat(q.leases().complete(c)).as("%s with token %d", c.id(), c.token()).isEqualTo(Ack.OK);
            }
        }
        assertThat(q.inspector().check().problems()).isEmpty();
    }

    /** The functions of the includes, loaded as claim loads them, with {@code body} run after them. */
    private Object lua(String body, String... args) {
        String source = include("record") + include("notify") + include("flow") + include("jobs") + "\n" + body;
        String[] cmd = new String[3 + args.length];
        cmd[0] = "EVAL";
        cmd[1] = source;
        cmd[2] = "0";
        System.arraycopy(args, 0, cmd, 3, args.length);
        return REDIS.server().call(cmd);
    }

    private static String include(String name) {
        try (InputStream in = ClaimDueTimesTest.class.getResourceAsStream("/dev/delayq/lua/includes/" + name + ".lua")) {
            return Script.limits(new String(in.readAllBytes(), StandardCharsets.UTF_8), name) + "\n";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void lagBucketsAreExactAtEveryPowerOfTwoAndSayWhichLagsShareThem() {
        // History.java: 0 under 1 ms, b (1 to 20) from 2^(b-1) to under 2^b ms, 20 also everything above.
        List<String> lags = new ArrayList<>(List.of("-5", "0", "0.5", "1", "1.5"));
        for (int k = 1; k <= 22; k++) {
            long p = 1L << k;
            lags.add(Long.toString(p - 1));
            lags.add(Long.toString(p));
            lags.add(Long.toString(p + 1));
        }
        Object reply = lua("""
                local out = {}
                for i = 1, #ARGV do
                  local b, lo, hi = lag_bucket(tonumber(ARGV[i]))
                  out[i] = b .. ' ' .. tostring(lo) .. ' ' .. tostring(hi)
                end
                return out
                """, lags.toArray(String[]::new));
        List<?> got = (List<?>) reply;
        for (int i = 0; i < lags.size(); i++) {
            double lag = Double.parseDouble(lags.get(i));
            int b = lag < 1 ? 0 : Math.min(20, 64 - Long.numberOfLeadingZeros((long) Math.floor(lag)));
            String lo = b == 0 ? "-inf" : Long.toString(1L << (b - 1));
            String hi = b == 0 ? "1" : b == 20 ? "inf" : Long.toString(1L << b);
            assertThat(got.get(i)).as("lag %s", lags.get(i)).isEqualTo(b + " " + lo + " " + hi);
        }
    }

    @Test
    void varintStringsAreTheVarintBytesOfEveryLength() {
        List<String> values = new ArrayList<>(List.of("0", "1", "127"));
        for (int k = 7; k <= 53; k += 7) {
            long p = 1L << k;
            values.add(Long.toString(p - 1));
            values.add(Long.toString(p));
            values.add(Long.toString(p + 1));
        }
        values.add(Long.toString(1L << 53));
        values.add("1764600000000"); // a due time of 2025
        Object reply = lua("""
                local out = {}
                for i = 1, #ARGV do out[i] = table.concat({ string.byte(varint_string(tonumber(ARGV[i])), 1, -1) }, ',') end
                return out
                """, values.toArray(String[]::new));
        List<?> got = (List<?>) reply;
        for (int i = 0; i < values.size(); i++) {
            long v = Long.parseLong(values.get(i));
            StringJoiner want = new StringJoiner(",");
            while (v >= 128) {
                want.add(Long.toString(v % 128 + 128));
                v /= 128;
            }
            want.add(Long.toString(v));
            assertThat(got.get(i)).as("varint of %s", values.get(i)).isEqualTo(want.toString());
        }
    }

    @Test
    void wholeNumbersArePrintedExactlyUpToTwoToTheFiftyThird() {
        // int() prints scores, counts and times for redis.call; a due time in priority band 1 is the largest score.
        long[] values = {0, 1, 127, 2_147_483_648L, 4_294_967_297L, 1_764_600_000_123L, 8L * (1L << 48) + 1_764_600_000_123L,
            (1L << 53) - 1, 1L << 53};
        List<String> args = new ArrayList<>();
        for (long v : values) {
            args.add(Long.toString(v));
        }
        Object reply = lua("""
                local out = {}
                for i = 1, #ARGV do out[i] = int(tonumber(ARGV[i])) end
                return out
                """, args.toArray(String[]::new));
        assertThat((List<?>) reply).isEqualTo(args);
    }
}
