package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Durations read and printed in the command line's units; too long ones refused, never overflowing. */
class DurationsTest {
    @Test
    void printsInTheUnitsItReads() {
        assertThat(Durations.format(Duration.ofSeconds(30))).isEqualTo("30s");
        assertThat(Durations.format(Duration.ofMillis(250))).isEqualTo("250ms");
        assertThat(Durations.format(Duration.ofMinutes(90))).isEqualTo("1h30m");
        assertThat(Durations.format(Duration.ofMillis(60_500))).isEqualTo("1m500ms");
        assertThat(Durations.format(Duration.ofDays(7))).isEqualTo("7d");
        assertThat(Durations.format(Duration.ZERO)).isEqualTo("0s");
        assertThat(Durations.format(Duration.ofSeconds(-5))).isEqualTo("-5s");
        for (String s : new String[] {"30s", "250ms", "1h30m", "1m500ms", "7d", "2d3h4m5s6ms"}) {
            assertThat(Durations.format(Durations.parse(s))).isEqualTo(s);
        }
    }

    @Test
    void tooLongIsRefusedNeverOverflowing() {
        assertThat(Durations.parse("3650000d")).isEqualTo(Durations.MAX);
        for (String s : new String[] {"3650001d", "100000000000000d", "9223372036854775807d", "99999999999999999999s",
                "3000000d3000000d", "PT99999999999999999999H", "P9999999999999999D", "-P3650001D"}) {
            assertThatThrownBy(() -> Durations.parse(s)).as(s).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("duration '" + s + "' is too long: at most 3650000d (10,000 years)");
        }
        assertThatThrownBy(() -> Durations.parse("soon")).hasMessageStartingWith("invalid duration 'soon'");
    }

    @Test
    void aRateIsNPerDurationOrNPerUnit() {
        assertThat(Durations.parseRate("--rate", "50/1s")).isEqualTo(new Durations.Rate(50, Duration.ofSeconds(1)));
        assertThat(Durations.parseRate("--rate", "1000/1m")).isEqualTo(new Durations.Rate(1000, Duration.ofMinutes(1)));
        assertThat(Durations.parseRate("--rate", "5/250ms")).isEqualTo(new Durations.Rate(5, Duration.ofMillis(250)));
        assertThat(Durations.parseRate("--rate", "10/s")).isEqualTo(new Durations.Rate(10, Duration.ofSeconds(1)));
        assertThat(Durations.parseRate("--rate", "600/m")).isEqualTo(new Durations.Rate(600, Duration.ofMinutes(1)));
        assertThat(Durations.parseRate("--rate", "5000/h")).isEqualTo(new Durations.Rate(5000, Duration.ofHours(1)));
        assertThat(Durations.parseRate("--rate", "100000/d")).isEqualTo(new Durations.Rate(100000, Duration.ofDays(1)));
        assertThat(Durations.parseRate("--rate", " 3/1h30m ")).isEqualTo(new Durations.Rate(3, Duration.ofMinutes(90)));
        for (String bad : new String[] {"fifty", "10", "/s", "10/", "10/sec", "10/x", "-1/s", "1.5/s"}) {
            assertThatThrownBy(() -> Durations.parseRate("--rate", bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith(bad.equals("10/sec") || bad.equals("10/x") ? "invalid duration" : "--rate '" + bad
                            + "' is invalid: use N/DUR or N/UNIT, e.g. 50/1s, 1000/1m or 10/s");
        }
        assertThatThrownBy(() -> Durations.parseRate("--rate", "0/s")).hasMessage("--rate 0/s: N must be from 1 to 1000000000");
        assertThatThrownBy(() -> Durations.parseRate("--rate", "9999999999/s"))
                .hasMessage("--rate 9999999999/s: N must be from 1 to 1000000000");
    }

    @Test
    void rewritesJavasDurationsInMessagesButNotQuotedValues() {
        assertThat(Durations.humanizeIso("delay is PT-5S: it must be zero or positive"))
                .isEqualTo("delay is -5s: it must be zero or positive");
        assertThat(Durations.humanizeIso("backoff cap PT1S is shorter than the base PT10S"))
                .isEqualTo("backoff cap 1s is shorter than the base 10s");
        assertThat(Durations.humanizeIso("due time of job 'PT5S' (delay PT87600000H) falls beyond year 9999"))
                .isEqualTo("due time of job 'PT5S' (delay 3650000d) falls beyond year 9999");
        assertThat(Durations.humanizeIso("grace PT0.25S, P2DT3H")).isEqualTo("grace 250ms, 2d3h");
        assertThat(Durations.humanizeIso("use ISO-8601 (PT30S)")).isEqualTo("use ISO-8601 (PT30S)");
        assertThat(Durations.humanizeIso("PRIMARY P and PT")).isEqualTo("PRIMARY P and PT");
    }
}
