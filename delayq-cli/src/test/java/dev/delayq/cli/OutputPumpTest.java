package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Copying a command's output: whole lines with a prefix, long lines in pieces cut between characters. */
class OutputPumpTest {
    private static List<String> pump(byte[] input, String prefix, OutputPump.Tail tail) {
        StringWriter out = new StringWriter();
        new OutputPump(new ByteArrayInputStream(input), new PrintWriter(out), prefix, tail).run();
        return out.toString().lines().toList();
    }

    @Test
    void linesGetThePrefixAndACarriageReturnIsDropped() {
        assertThat(pump("one\r\ntwo\nthree".getBytes(StandardCharsets.UTF_8), "[job a] ", null))
                .containsExactly("[job a] one", "[job a] two", "[job a] three");
    }

    @Test
    void aLongLineIsSplitWithoutCuttingACharacter() {
        // 'é' is two bytes: 40,000 of them cross the 64 KiB piece size in the middle of no character.
        String text = "x" + "é".repeat(40_000);
        List<String> lines = pump((text + "\n").getBytes(StandardCharsets.UTF_8), "", null);
        assertThat(lines).hasSize(2);
        assertThat(String.join("", lines)).isEqualTo(text);
        assertThat(lines.get(0).getBytes(StandardCharsets.UTF_8).length).isEqualTo(OutputPump.MAX_LINE - 1);
        assertThat(String.join("", lines)).doesNotContain("\uFFFD");
    }

    @Test
    void theTailKeepsTheLastBytes() {
        OutputPump.Tail tail = new OutputPump.Tail(12);
        pump(("a".repeat(100) + "\nlast line\n").getBytes(StandardCharsets.UTF_8), "", tail);
        assertThat(tail.text()).isEqualTo("a\nlast line"); // the last 12 bytes, trailing line break cut
    }
}
