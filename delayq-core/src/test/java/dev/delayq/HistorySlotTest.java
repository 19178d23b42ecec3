package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The per-minute history keeps 1,440 slots, each reset when a new minute first writes to it. claim and complete, which
 * read the queue's meta hash anyway, note there the minute whose slot they checked (field {@code hist}), so they check
 * it once a minute instead of once a call; these tests hold that shortcut to the slot's rules.
 */
class HistorySlotTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.dedicated(b -> { }); // its own server: commandstats are this test's

    private TestSupport t;
    private DelayQ dq;
    private JobQueue q;
    private String history;
    private String meta;
    private int queues;

    @BeforeEach
    void open() {
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
        dq = t.client();
        nextQueue();
    }

    /** A fresh queue (keys of its own), and at least 10 s left in the current minute on Redis's clock. */
    private void nextQueue() {
        String name = "h" + queues++;
        q = t.queue(dq, name);
        history = REDIS.prefix() + ":{" + name + "}:history";
        meta = REDIS.prefix() + ":{" + name + "}:meta";
        Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                .until(() -> dq.serverTime().toEpochMilli() % 60_000 < 50_000);
    }

    @AfterEach
    void close() {
        t.close();
    }

    private long minute() {
        return dq.serverTime().toEpochMilli() / 60_000;
    }

    private long calls(String command) {
        String v = REDIS.server().info("commandstats").get("cmdstat_" + command);
        if (v == null) {
            return 0;
        }
        return Long.parseLong(v.replaceAll("^calls=(\\d+),.*$", "$1"));
    }

    @Test
    void aDayOldSlotIsResetByTheFirstClaimAndCompleteOfTheMinuteAndTheyCountOnlyThisMinute() {
        while (true) { // a run that straddles a minute boundary is tried again: the slot would be another one
            q.enqueueAll(List.of(Job.builder().id("a").build(), Job.builder().id("b").build(), Job.builder().id("c").build()));
            long m = minute();
            long slot = m % 1440;
            // The slot as a day ago left it, and meta naming that day-old minute as checked.
            REDIS.server().call("HSET", history, slot + ":m", Long.toString(m - 1440), slot + ":c", "99", slot + ":l0", "99");
            REDIS.server().call("HSET", meta, "hist", Long.toString(m - 1440));
            List<ClaimedJob> got = q.leases().claim(ClaimOptions.of(3, Duration.ofMinutes(1))).jobs();
            assertThat(got).hasSize(3);
            got.forEach(j -> assertThat(q.leases().complete(j.lease())).isEqualTo(Ack.OK));
            if (minute() != m) {
                nextQueue();
                continue;
            }
            assertThat(REDIS.server().call("HGET", meta, "hist")).isEqualTo(Long.toString(m));
            MinuteStats now = q.inspector().history(1).get(0);
            assertThat(now.completed()).as("this minute's completions only, not the day-old 99").isEqualTo(3);
            assertThat(REDIS.server().call("HGET", history, slot + ":l0")).as("the day-old lag counts are gone").isNotEqualTo("99");
            return;
        }
    }

    /** The 7-day series (issue 43): a week-old hour slot is reset by the first write of a minute, and only 168 kept. */
    @Test
    void aWeekOldHourSlotIsResetAndTheHourSumsItsMinutesInBoundedSlots() {
        while (true) { // a run that straddles an hour boundary is tried again: the slot would be another one
            long m = minute();
            long hour = m / 60;
            String slot = "h" + (hour % 168);
            // The hour slot as a week ago left it; the minute slot is fresh, so the first write checks the hour.
            REDIS.server().call("HSET", history, slot + ":m", Long.toString(hour - 168), slot + ":e", "99", slot + ":l0", "99");
            q.enqueueAll(List.of(Job.builder().id("a").build(), Job.builder().id("b").build(), Job.builder().id("c").build()));
            List<ClaimedJob> got = q.leases().claim(ClaimOptions.of(3, Duration.ofMinutes(1))).jobs();
            assertThat(got).hasSize(3);
            got.forEach(j -> assertThat(q.leases().complete(j.lease())).isEqualTo(Ack.OK));
            if (minute() / 60 != hour) {
                nextQueue();
                continue;
            }
            List<MinuteStats> hours = q.inspector().hourlyHistory(168);
            assertThat(hours).hasSize(168);
            MinuteStats now = hours.get(167);
            assertThat(now.minute().getEpochSecond()).isEqualTo(hour * 3600);
            assertThat(now.enqueued()).as("this hour's, not the week-old 99").isEqualTo(3);
            assertThat(now.completed()).isEqualTo(3);
            assertThat(now.lagP99Millis()).as("the hour's claims' lag").isNotNaN();
            long minutes = q.inspector().history(60).stream().filter(x -> x.minute().getEpochSecond() / 3600 == hour)
                    .mapToLong(MinuteStats::enqueued).sum();
            assertThat(now.enqueued()).as("the hour sums its minutes").isEqualTo(minutes);
            assertThat(hours.subList(0, 167)).allSatisfy(h -> assertThat(h.enqueued() + h.completed()).isZero());
            @SuppressWarnings("unchecked")
            List<Object> fields = (List<Object>) (List<?>) REDIS.server().call("HKEYS", history);
            for (Object f : fields) {
                String name = f.toString();
                if (name.startsWith("h")) {
                    long n = Long.parseLong(name.substring(1, name.indexOf(':')));
                    assertThat(n).as(name).isBetween(0L, 167L);
                }
            }
            assertThatThrownBy(() -> q.inspector().hourlyHistory(169)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("hours");
            return;
        }
    }

    @Test
    void withinAMinuteClaimAndCompleteReadTheSlotOnce() {
        while (true) {
            q.enqueueAll(List.of(Job.builder().id("x").build(), Job.builder().id("y").build()));
            long m = minute();
            ClaimedJob first = q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1))).jobs().get(0);
            assertThat(q.leases().complete(first.lease())).isEqualTo(Ack.OK); // the minute is checked and noted by now
            long hgets = calls("hget");
            ClaimedJob second = q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1))).jobs().get(0);
            assertThat(q.leases().complete(second.lease())).isEqualTo(Ack.OK);
            long more = calls("hget") - hgets;
            if (minute() != m) {
                nextQueue(); // a new minute began in between: its first calls check the slot, as they must
                continue;
            }
            // claim reads the waker field (an HGET) when it fills up; nothing else of either script reads one field.
            assertThat(more).as("HGETs of the second claim and complete in the same minute").isLessThanOrEqualTo(1);
            assertThat(q.inspector().history(1).get(0).completed()).isEqualTo(2);
            return;
        }
    }
}
