package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.internal.ScheduleTimes;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Tick times, checked against known instants (pure computation, no Redis): daylight-saving transitions of
 * Europe/Berlin (2026-03-29 02:00 CET -> 03:00 CEST at 01:00Z; 2026-10-25 03:00 CEST -> 02:00 CET at 01:00Z) and
 * America/New_York (2026-03-08 02:00 EST -> 03:00 EDT at 07:00Z; 2026-11-01 02:00 EDT -> 01:00 EST at 06:00Z).
 */
class ScheduleTimesTest {
    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");

    private static long ms(String instant) {
        return Instant.parse(instant).toEpochMilli();
    }

    /**
     * The latest tick strictly before {@code beforeMs}, or {@link Long#MIN_VALUE}. {@code ScheduleTimes.previous} is
     * package-private in {@code internal}; {@code between(s, MIN, t - 1, 1)} is it, through the public path that the
     * catch-up of missed ticks takes.
     */
    private static long previous(Schedule s, long beforeMs) {
        List<Long> last = ScheduleTimes.between(s, Long.MIN_VALUE, beforeMs - 1, 1);
        return last.isEmpty() ? Long.MIN_VALUE : last.get(0);
    }

    /** The ticks after {@code from}, as instants. */
    private static List<String> ticks(Schedule s, String from, int n) {
        List<String> out = new ArrayList<>();
        long t = ms(from);
        for (int i = 0; i < n; i++) {
            t = ScheduleTimes.next(s, t);
            out.add(Instant.ofEpochMilli(t).toString());
        }
        return out;
    }

    @Test
    void berlinSpringATickInTheSkippedHourRunsOnceAtTheTransition() {
        Schedule daily = Schedule.cron("d", "30 2 * * *", BERLIN);
        // 02:30 CET on the 28th, then (no 02:30 on the 29th) the transition 03:00 CEST = 01:00Z, then 02:30 CEST.
        assertThat(ticks(daily, "2026-03-28T00:00:00Z", 3))
                .containsExactly("2026-03-28T01:30:00Z", "2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z");
        Schedule quarter = Schedule.cron("q", "*/15 * * * *", BERLIN);
        // 01:45 CET, then 02:00-02:45 (skipped) and 03:00 CEST all meet at the transition: one tick; then 03:15 CEST.
        assertThat(ticks(quarter, "2026-03-29T00:40:00Z", 3))
                .containsExactly("2026-03-29T00:45:00Z", "2026-03-29T01:00:00Z", "2026-03-29T01:15:00Z");
        Schedule hourly = Schedule.cron("h", "0 * * * *", BERLIN);
        assertThat(ticks(hourly, "2026-03-28T23:30:00Z", 4)).containsExactly(
                "2026-03-29T00:00:00Z", "2026-03-29T01:00:00Z", "2026-03-29T02:00:00Z", "2026-03-29T03:00:00Z");
    }

    @Test
    void berlinAutumnATickInTheRepeatedHourRunsOnce() {
        Schedule daily = Schedule.cron("d", "30 2 * * *", BERLIN);
        // 02:30 happens twice on the 25th (00:30Z CEST, 01:30Z CET): the first pass only.
        assertThat(ticks(daily, "2026-10-24T12:00:00Z", 3))
                .containsExactly("2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z", "2026-10-27T01:30:00Z");
        Schedule hourly = Schedule.cron("h", "0 * * * *", BERLIN);
        // 01:00 CEST, 02:00 CEST, (02:00 CET skipped: already run), 03:00 CET.
        assertThat(ticks(hourly, "2026-10-24T22:30:00Z", 4)).containsExactly(
                "2026-10-24T23:00:00Z", "2026-10-25T00:00:00Z", "2026-10-25T02:00:00Z", "2026-10-25T03:00:00Z");
        // Looked at during the second pass (02:10 CET), a schedule does not tick in it: its wall-clock times ran in
        // the first pass (02:20 and 02:40 CEST). The next tick is at the repeated hour's end, 03:00 CET.
        assertThat(ticks(Schedule.cron("q", "*/20 * * * *", BERLIN), "2026-10-25T01:10:00Z", 3))
                .containsExactly("2026-10-25T02:00:00Z", "2026-10-25T02:20:00Z", "2026-10-25T02:40:00Z");
        // The same for a daily tick: 02:30 ran at 00:30Z (CEST); not again at 01:30Z (CET), but the next day.
        assertThat(ticks(daily, "2026-10-25T01:10:00Z", 1)).containsExactly("2026-10-26T01:30:00Z");
        assertThat(previous(daily, ms("2026-10-25T01:40:00Z"))).isEqualTo(ms("2026-10-25T00:30:00Z"));
    }

    @Test
    void newYorkSpringAndAutumn() {
        Schedule daily = Schedule.cron("d", "30 2 * * *", NEW_YORK);
        assertThat(ticks(daily, "2026-03-07T12:00:00Z", 3))
                .containsExactly("2026-03-08T07:00:00Z", "2026-03-09T06:30:00Z", "2026-03-10T06:30:00Z");
        Schedule early = Schedule.cron("e", "30 1 * * *", NEW_YORK);
        // 01:30 happens twice on Nov 1st (05:30Z EDT, 06:30Z EST): once, in EDT; EST from the next day.
        assertThat(ticks(early, "2026-10-31T12:00:00Z", 3))
                .containsExactly("2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z", "2026-11-03T06:30:00Z");
        Schedule withSeconds = Schedule.cron("s", "0 0 9 * * MON-FRI", NEW_YORK);
        assertThat(ticks(withSeconds, "2026-11-01T00:00:00Z", 2))
                .containsExactly("2026-11-02T14:00:00Z", "2026-11-03T14:00:00Z");
    }

    /** Zones with daylight saving, each for a reason; both transitions of 2026 are checked. */
    private static final List<String> DST_ZONES = List.of(
            "Europe/Berlin",       // the gap 02:00-03:00, the repeated hour 02:00-03:00
            "America/New_York",    // the repeated hour is 01:00-02:00
            "Australia/Sydney",    // southern hemisphere: the gap in October, the repeated hour in April
            "Australia/Lord_Howe", // a 30-minute shift: 02:00-02:30 skipped, 01:30-02:00 repeated
            "Pacific/Chatham",     // off the hour: 02:45-03:45 skipped and repeated
            "America/Santiago",    // at midnight: 23:00-24:00 of the day before is repeated
            "Antarctica/Troll");   // a 2-hour shift: 01:00-03:00 skipped and repeated

    /**
     * Around every transition of {@link #DST_ZONES}, for expressions on the hour, every quarter, every 20 minutes (6
     * fields), and daily inside the skipped or repeated time (half-way through, and in its last second): from every
     * minute of both passes of the repeated time (or the skipped time's transition) and half an hour either side, from
     * a millisecond either side of each tick, and from around and within the last second of each pass,
     * {@code next} and {@code previous} are the nearest ticks of {@link #watch}; iterating {@code next}, and
     * {@code between} (which iterates {@code previous}), give each tick of the window once.
     */
    @Test
    void aroundEveryTransitionNextAndPreviousAreTheTicksOfAClockWatcher() {
        List<String> wrong = new ArrayList<>();
        int checked = 0;
        for (String id : DST_ZONES) {
            ZoneId zone = ZoneId.of(id);
            ZoneOffsetTransition tr = zone.getRules().nextTransition(Instant.parse("2026-01-01T00:00:00Z"));
            for (int k = 0; k < 2; k++, tr = zone.getRules().nextTransition(tr.getInstant())) {
                // The wall-clock times skipped (gap) or shown twice (overlap): [start, end).
                boolean gap = tr.isGap();
                LocalDateTime start = gap ? tr.getDateTimeBefore() : tr.getDateTimeAfter();
                LocalDateTime end = gap ? tr.getDateTimeAfter() : tr.getDateTimeBefore();
                // Daily, half-way through it (Berlin: '30 2 * * *'), and in its last second.
                LocalDateTime in = start.plus(Duration.between(start, end).dividedBy(2));
                LocalDateTime last = end.minusSeconds(1);
                List<String> crons = List.of("0 * * * *", "*/15 * * * *", "0 */20 * * * *",
                        in.getMinute() + " " + in.getHour() + " * * *",
                        last.getSecond() + " " + last.getMinute() + " " + last.getHour() + " * * *");
                for (String cron : crons) {
                    checked += checkAround(zone, tr, cron, wrong);
                }
            }
        }
        Map<String, String> firstOfEach = new LinkedHashMap<>();
        for (String w : wrong) {
            firstOfEach.putIfAbsent(w.substring(0, w.indexOf(": ")), w);
        }
        assertThat(firstOfEach.values()).as("%d wrong of %d answers; the first of each zone, expression and transition",
                wrong.size(), checked).isEmpty();
    }

    /**
     * Checks {@code cron} around {@code tr}, adding what is wrong to {@code wrong}; returns the answers checked. The
     * window is both passes of an overlap (or the transition instant of a gap) and an hour on either side.
     */
    private static int checkAround(ZoneId zone, ZoneOffsetTransition tr, String cron, List<String> wrong) {
        Schedule s = Schedule.cron("c", cron, zone);
        long at0 = tr.toEpochSecond() * 1000;
        long shift = Math.abs(tr.getDuration().toMillis());
        long passes = tr.isGap() ? 0 : shift; // a gap has no instants of its own
        long from = at0 - passes - 3_600_000;
        long to = at0 + passes + 3_600_000;
        NavigableSet<Long> ticks = watch(zone, WallCron.of(cron), from, to);
        String what = zone + " '" + cron + "' around the " + (tr.isGap() ? "gap" : "overlap") + " of " + tr.getInstant();
        // From every minute of the passes and half an hour either side; a millisecond either side of each tick;
        // around the passes' ends, and within their last second (a search is in whole seconds).
        NavigableSet<Long> at = new TreeSet<>();
        for (long m = at0 - passes - 1_800_000; m <= at0 + passes + 1_800_000; m += 60_000) {
            at.add(m);
        }
        for (long t : ticks) {
            at.addAll(List.of(t - 1, t + 1));
        }
        for (long e : List.of(at0 - passes, at0, at0 + passes)) {
            at.addAll(List.of(e - 1000, e - 500, e - 1, e, e + 1, e + 1000));
        }
        int checked = 0;
        for (long t : at.subSet(from, true, to, true)) {
            // Without a tick in the window after t (before t), the answer is past the window's end (start).
            Long next = ticks.higher(t);
            long got = ScheduleTimes.next(s, t);
            if (next != null ? got != next : got <= to) {
                wrong.add(what + ": next(" + show(zone, t) + ") = " + show(zone, got) + ", expected "
                        + (next != null ? show(zone, next) : "after " + show(zone, to)));
            }
            Long prev = ticks.lower(t);
            got = previous(s, t);
            if (prev != null ? got != prev : got >= from) {
                wrong.add(what + ": previous(" + show(zone, t) + ") = " + show(zone, got) + ", expected "
                        + (prev != null ? show(zone, prev) : "before " + show(zone, from)));
            }
            checked += 2;
        }
        List<Long> expected = new ArrayList<>(ticks.subSet(from, false, to, true));
        List<Long> forward = new ArrayList<>();
        for (long t = ScheduleTimes.next(s, from); t <= to; t = ScheduleTimes.next(s, t)) {
            forward.add(t);
        }
        if (!forward.equals(expected)) {
            wrong.add(what + ": next from " + show(zone, from) + " on gave " + shows(zone, forward) + ", expected "
                    + shows(zone, expected));
        }
        List<Long> caughtUp = ScheduleTimes.between(s, from, to, 1000);
        if (!caughtUp.equals(expected)) {
            wrong.add(what + ": between gave " + shows(zone, caughtUp) + ", expected " + shows(zone, expected));
        }
        return checked + 2;
    }

    /**
     * The ticks in [from, to] by the documented rule, worked out apart from the code under test: a watcher looks at
     * the zone's wall clock every second and runs each matching wall-clock time when the clock first shows it or a
     * later time. Across a gap, the clock jumps: the skipped times all run at the transition, as one tick. In an
     * overlap, the clock shows times again: nothing runs until it passes the latest time shown so far.
     */
    private static NavigableSet<Long> watch(ZoneId zone, WallCron cron, long from, long to) {
        NavigableSet<Long> ticks = new TreeSet<>();
        LocalDateTime latest = wall(zone, from).minusSeconds(1);
        for (long t = from; t <= to; t += 1000) {
            LocalDateTime now = wall(zone, t);
            for (LocalDateTime w = latest.plusSeconds(1); !w.isAfter(now); w = w.plusSeconds(1)) {
                if (cron.matches(w)) {
                    ticks.add(t);
                }
            }
            if (now.isAfter(latest)) {
                latest = now;
            }
        }
        return ticks;
    }

    private static LocalDateTime wall(ZoneId zone, long ms) {
        return Instant.ofEpochMilli(ms).atZone(zone).toLocalDateTime();
    }

    private static String show(ZoneId zone, long ms) {
        // -1 (no next tick) and Long.MIN_VALUE (no previous one) as they are.
        return ms < 0 ? String.valueOf(ms) : Instant.ofEpochMilli(ms).atZone(zone).toOffsetDateTime().toString();
    }

    private static List<String> shows(ZoneId zone, List<Long> ms) {
        return ms.stream().map(t -> show(zone, t)).toList();
    }

    /**
     * The cron expressions of these tests read without cron-utils: second (of 6 fields), minute and hour as
     * {@code *}, {@code *}{@code /n}, a number, or a list of them; the day fields must be {@code *}.
     */
    private record WallCron(BitSet seconds, BitSet minutes, BitSet hours) {
        static WallCron of(String cron) {
            String[] f = cron.split(" ");
            int m = f.length - 5;
            for (int i = m + 2; i < f.length; i++) {
                assertThat(f[i]).as("day field of '%s'", cron).isEqualTo("*");
            }
            return new WallCron(field(m == 1 ? f[0] : "0", 60), field(f[m], 60), field(f[m + 1], 24));
        }

        private static BitSet field(String spec, int size) {
            BitSet values = new BitSet(size);
            for (String part : spec.split(",")) {
                if (part.equals("*")) {
                    values.set(0, size);
                } else if (part.startsWith("*/")) {
                    for (int v = 0; v < size; v += Integer.parseInt(part.substring(2))) {
                        values.set(v);
                    }
                } else {
                    values.set(Integer.parseInt(part));
                }
            }
            return values;
        }

        boolean matches(LocalDateTime w) {
            return seconds.get(w.getSecond()) && minutes.get(w.getMinute()) && hours.get(w.getHour());
        }
    }

    @Test
    void missedTicksAreTheLatestOnesUpToTheBoundAndAgreeWithNext() {
        Schedule hourly = Schedule.cron("h", "0 * * * *", BERLIN);
        assertThat(ScheduleTimes.between(hourly, ms("2026-10-24T22:30:00Z"), ms("2026-10-25T03:00:00Z"), 100))
                .containsExactly(ms("2026-10-24T23:00:00Z"), ms("2026-10-25T00:00:00Z"), ms("2026-10-25T02:00:00Z"),
                        ms("2026-10-25T03:00:00Z"));
        assertThat(ScheduleTimes.between(Schedule.cron("q", "*/15 * * * *", BERLIN), ms("2026-03-29T00:40:00Z"),
                ms("2026-03-29T01:20:00Z"), 100))
                .containsExactly(ms("2026-03-29T00:45:00Z"), ms("2026-03-29T01:00:00Z"), ms("2026-03-29T01:15:00Z"));
        Schedule second = Schedule.every("s", Duration.ofSeconds(1));
        List<Long> missed = ScheduleTimes.between(second, 0, 1_000_000, Schedule.MAX_CATCH_UP);
        assertThat(missed).hasSize(100).startsWith(901_000L).endsWith(1_000_000L);
        assertThat(ScheduleTimes.between(second, 0, 1_000_000, 1)).containsExactly(1_000_000L);
    }

    @Test
    void everyTicksOnMultiplesFromItsStartAndStopsAtItsEnd() {
        Schedule s = Schedule.every("e", Duration.ofMinutes(5));
        assertThat(ScheduleTimes.next(s, ms("2026-01-01T10:02:00Z"))).isEqualTo(ms("2026-01-01T10:05:00Z"));
        assertThat(ScheduleTimes.next(s, ms("2026-01-01T10:05:00Z"))).isEqualTo(ms("2026-01-01T10:10:00Z"));
        Schedule windowed = s.start(Instant.parse("2026-01-01T10:01:00Z")).end(Instant.parse("2026-01-01T10:11:00Z"));
        assertThat(ScheduleTimes.next(windowed, ms("2026-01-01T09:00:00Z"))).isEqualTo(ms("2026-01-01T10:01:00Z"));
        assertThat(ScheduleTimes.next(windowed, ms("2026-01-01T10:02:00Z"))).isEqualTo(ms("2026-01-01T10:06:00Z"));
        assertThat(ScheduleTimes.next(windowed, ms("2026-01-01T10:06:00Z"))).isEqualTo(ms("2026-01-01T10:11:00Z"));
        assertThat(ScheduleTimes.next(windowed, ms("2026-01-01T10:11:00Z"))).isEqualTo(-1);
        Schedule cron = Schedule.cron("c", "0 12 * * *", ZoneId.of("UTC")).start(Instant.parse("2026-02-01T00:00:00Z"));
        assertThat(ScheduleTimes.next(cron, ms("2026-01-01T00:00:00Z"))).isEqualTo(ms("2026-02-01T12:00:00Z"));
    }

    @Test
    void badInputIsRefusedWithWhatIsAllowed() {
        assertThatThrownBy(() -> Schedule.cron("x", "61 * * * *", BERLIN)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'61 * * * *' is invalid").hasMessageContaining("minute 0-59");
        assertThatThrownBy(() -> Schedule.cron("x", "* * * *", BERLIN)).hasMessageContaining("has 4 fields: use 5");
        assertThatThrownBy(() -> Schedule.cron("x", "0 0 30 2 *", BERLIN)).hasMessageContaining("never matches");
        assertThatThrownBy(() -> Schedule.cron("a@b", "* * * * *", BERLIN)).hasMessageContaining("contains '@'");
        assertThatThrownBy(() -> Schedule.cron("a\nb", "* * * * *", BERLIN)).hasMessageContaining("control character");
        assertThatThrownBy(() -> Schedule.every("n".repeat(129), Duration.ofMinutes(1)))
                .hasMessageContaining("schedule name is 129 bytes long: the limit is 128");
        assertThat(Schedule.every("n".repeat(128), Duration.ofMinutes(1)).name()).hasSize(128);
        assertThatThrownBy(() -> Schedule.every("x", Duration.ofMillis(500))).hasMessageContaining("use 1s to 100 years");
        assertThatThrownBy(() -> Schedule.every("x", Duration.ofSeconds(-1))).hasMessageContaining("use 1s");
        assertThatThrownBy(() -> Schedule.every("x", Duration.ofMinutes(1)).start(Instant.parse("2026-01-02T00:00:00Z"))
                .end(Instant.parse("2026-01-01T00:00:00Z"))).hasMessageContaining("is not after its start");
        assertThatThrownBy(() -> Schedule.every("x", Duration.ofMinutes(1)).maxAttempts(-1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
