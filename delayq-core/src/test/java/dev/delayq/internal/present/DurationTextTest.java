package dev.delayq.internal.present;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The one duration grammar (the command line's, the dashboard's, the starter's): durations read and printed in the
 * same units; too long ones refused, never overflowing.
 */
class DurationTextTest {
    @Test
    void printsInTheUnitsItReads() {
        assertThat(DurationText.format(Duration.ofSeconds(30))).isEqualTo("30s");
        assertThat(DurationText.format(Duration.ofMillis(250))).isEqualTo("250ms");
        assertThat(DurationText.format(Duration.ofMinutes(90))).isEqualTo("1h30m");
        assertThat(DurationText.format(Duration.ofMillis(60_500))).isEqualTo("1m500ms");
        assertThat(DurationText.format(Duration.ofDays(7))).isEqualTo("7d");
        assertThat(DurationText.format(Duration.ZERO)).isEqualTo("0s");
        assertThat(DurationText.format(Duration.ofSeconds(-5))).isEqualTo("-5s");
        for (String s : new String[] {"30s", "250ms", "1h30m", "1m500ms", "7d", "2d3h4m5s6ms"}) {
            assertThat(DurationText.format(DurationText.parse(s))).isEqualTo(s);
        }
    }

    @Test
    void tooLongIsRefusedNeverOverflowing() {
        assertThat(DurationText.parse("3650000d")).isEqualTo(DurationText.MAX);
        for (String s : new String[] {"3650001d", "100000000000000d", "9223372036854775807d", "99999999999999999999s",
                "3000000d3000000d", "PT99999999999999999999H", "P9999999999999999D", "-P3650001D"}) {
            assertThatThrownBy(() -> DurationText.parse(s)).as(s).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("duration '" + s + "' is too long: at most 3650000d (10,000 years)");
        }
        assertThatThrownBy(() -> DurationText.parse("soon")).hasMessageStartingWith("invalid duration 'soon'");
    }

    @Test
    void aRateIsNPerDurationOrNPerUnit() {
        assertThat(DurationText.parseRate("--rate", "50/1s")).isEqualTo(new DurationText.Rate(50, Duration.ofSeconds(1)));
        assertThat(DurationText.parseRate("--rate", "1000/1m")).isEqualTo(new DurationText.Rate(1000, Duration.ofMinutes(1)));
        assertThat(DurationText.parseRate("--rate", "5/250ms")).isEqualTo(new DurationText.Rate(5, Duration.ofMillis(250)));
        assertThat(DurationText.parseRate("--rate", "10/s")).isEqualTo(new DurationText.Rate(10, Duration.ofSeconds(1)));
        assertThat(DurationText.parseRate("--rate", "600/m")).isEqualTo(new DurationText.Rate(600, Duration.ofMinutes(1)));
        assertThat(DurationText.parseRate("--rate", "5000/h")).isEqualTo(new DurationText.Rate(5000, Duration.ofHours(1)));
        assertThat(DurationText.parseRate("--rate", "100000/d")).isEqualTo(new DurationText.Rate(100000, Duration.ofDays(1)));
        assertThat(DurationText.parseRate("--rate", " 3/1h30m ")).isEqualTo(new DurationText.Rate(3, Duration.ofMinutes(90)));
        for (String bad : new String[] {"fifty", "10", "/s", "10/", "10/sec", "10/x", "-1/s", "1.5/s"}) {
            assertThatThrownBy(() -> DurationText.parseRate("--rate", bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith(bad.equals("10/sec") || bad.equals("10/x") ? "invalid duration" : "--rate '" + bad
                            + "' is invalid: use N/DUR or N/UNIT, e.g. 50/1s, 1000/1m or 10/s");
        }
        assertThatThrownBy(() -> DurationText.parseRate("--rate", "0/s")).hasMessage("--rate 0/s: N must be from 1 to 1000000000");
        assertThatThrownBy(() -> DurationText.parseRate("--rate", "9999999999/s"))
                .hasMessage("--rate 9999999999/s: N must be from 1 to 1000000000");
    }

    @Test
    void rewritesJavasDurationsInMessagesButNotQuotedValues() {
        assertThat(DurationText.humanizeIso("delay is PT-5S: it must be zero or positive"))
                .isEqualTo("delay is -5s: it must be zero or positive");
        assertThat(DurationText.humanizeIso("backoff cap PT1S is shorter than the base PT10S"))
                .isEqualTo("backoff cap 1s is shorter than the base 10s");
        assertThat(DurationText.humanizeIso("due time of job 'PT5S' (delay PT87600000H) falls beyond year 9999"))
                .isEqualTo("due time of job 'PT5S' (delay 3650000d) falls beyond year 9999");
        assertThat(DurationText.humanizeIso("grace PT0.25S, P2DT3H")).isEqualTo("grace 250ms, 2d3h");
        assertThat(DurationText.humanizeIso("use ISO-8601 (PT30S)")).isEqualTo("use ISO-8601 (PT30S)");
        assertThat(DurationText.humanizeIso("PRIMARY P and PT")).isEqualTo("PRIMARY P and PT");
    }

    @Test
    void theDashboardsFormsAreTheCommandLinesAndAReasonFollowsTheValue() {
        for (String s : new String[] {"250ms", "30s", "5m", "2h", "7d", "1h30m", "PT30S", "P1D", " 30s "}) {
            assertThat(DurationText.parseNonNegative(s)).as(s).isEqualTo(DurationText.parse(s));
        }
        assertThatThrownBy(() -> DurationText.parseNonNegative("-PT1S")).isInstanceOf(DurationText.Invalid.class)
                .extracting(e -> ((DurationText.Invalid) e).reason()).isEqualTo("it must not be negative");
        assertThatThrownBy(() -> DurationText.parse("soon")).isInstanceOf(DurationText.Invalid.class)
                .hasMessage("invalid duration 'soon': " + DurationText.FORMS)
                .extracting(e -> ((DurationText.Invalid) e).reason()).isEqualTo(DurationText.FORMS);
        assertThatThrownBy(() -> DurationText.parse("1h 30m")).hasMessageStartingWith("invalid duration '1h 30m'");
        assertThatThrownBy(() -> DurationText.parse("")).hasMessageStartingWith("invalid duration ''");
        assertThatThrownBy(() -> DurationText.parse(null)).hasMessageStartingWith("invalid duration 'null'");
    }

    @Test
    void instantsNeedAZoneAndMayStandInBlanks() {
        assertThat(DurationText.parseInstant("2026-12-01T10:00:00Z")).isEqualTo(Instant.parse("2026-12-01T10:00:00Z"));
        assertThat(DurationText.parseInstant(" 2026-12-01T11:00:00+01:00 ")).isEqualTo(Instant.parse("2026-12-01T10:00:00Z"));
        assertThatThrownBy(() -> DurationText.parseInstant("2026-12-01T10:00:00")).isInstanceOf(DurationText.Invalid.class)
                .hasMessage("invalid instant '2026-12-01T10:00:00': use ISO-8601 with a zone, e.g. 2026-12-01T10:00:00Z "
                        + "or 2026-12-01T11:00:00+01:00");
    }

    @Test
    void checkNamesTheOptionAndTheBoundsInTheSameUnits() {
        assertThat(DurationText.check("--lease", Duration.ofSeconds(30), Duration.ofMillis(100), Duration.ofDays(1)))
                .isEqualTo(Duration.ofSeconds(30));
        assertThatThrownBy(() -> DurationText.check("--lease", Duration.ofDays(2), Duration.ofMillis(100), Duration.ofDays(1)))
                .hasMessage("--lease is 2d: it must be between 100ms and 1d");
    }
}
