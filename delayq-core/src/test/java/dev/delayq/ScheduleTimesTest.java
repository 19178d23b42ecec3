package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.internal.ScheduleTimes;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
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
        // A schedule first looked at during the second pass ticks in it (after its 'now'), then goes on normally.
        assertThat(ticks(Schedule.cron("q", "*/20 * * * *", BERLIN), "2026-10-25T01:10:00Z", 3))
                .containsExactly("2026-10-25T01:20:00Z", "2026-10-25T01:40:00Z", "2026-10-25T02:00:00Z");
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
