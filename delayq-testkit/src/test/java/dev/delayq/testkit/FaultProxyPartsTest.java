package dev.delayq.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The parts of {@link FaultProxy} that need no sockets: finding a marker across chunks, and the fault budget. */
class FaultProxyPartsTest {
    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void aMarkerIsFoundWithinAChunkAndSplitAcrossChunksButNotInPartsThatNeverMeet() {
        byte[] marker = bytes("abcdef");
        MarkerWatch whole = new MarkerWatch();
        assertThat(whole.feed(marker, bytes("xxabcdefyy"), 10)).isTrue();

        MarkerWatch split = new MarkerWatch();
        assertThat(split.feed(marker, bytes("....abc"), 7)).isFalse();
        assertThat(split.feed(marker, bytes("def...."), 7)).isTrue();

        MarkerWatch threeWays = new MarkerWatch();
        assertThat(threeWays.feed(marker, bytes("ab"), 2)).isFalse();
        assertThat(threeWays.feed(marker, bytes("cd"), 2)).isFalse();
        assertThat(threeWays.feed(marker, bytes("ef"), 2)).isTrue();

        MarkerWatch apart = new MarkerWatch();
        assertThat(apart.feed(marker, bytes("abc"), 3)).isFalse();
        assertThat(apart.feed(marker, bytes("...def"), 6)).isFalse();
        // only the first n bytes of the buffer count
        assertThat(new MarkerWatch().feed(marker, bytes("abcdeXabcdef"), 5)).isFalse();
    }

    @Test
    void theBudgetRefusesFaultsBeyondItsMaxAndDisarmsWhatIsLeft() {
        FaultBudget budget = new FaultBudget(2);
        AtomicInteger armed = new AtomicInteger(5);
        assertThat(budget.take(armed)).isTrue();
        assertThat(budget.spend()).isTrue();
        assertThat(armed).hasValue(4);
        assertThat(budget.take(armed)).isFalse(); // the third fault: refused, and the rest disarmed
        assertThat(armed).hasValue(0);
        assertThat(budget.take(armed)).isFalse();
        assertThat(budget.refused()).isEqualTo(1);
        assertThat(budget.spend()).isFalse();
        assertThat(budget.refused()).isEqualTo(2);
        assertThatThrownBy(() -> new FaultBudget(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("max faults must be >= 0, was -1");
    }
}
