package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Lines held up to a bound; a longer one is read past and reported by its length. */
class BoundedLinesTest {
    private static List<String> read(String input, int max) throws IOException {
        BoundedLines lines = new BoundedLines(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), max);
        List<String> out = new ArrayList<>();
        BoundedLines.Line l;
        while ((l = lines.next()) != null) {
            out.add(l.tooLong() ? "<" + l.length() + " bytes>" : new String(l.bytes(), StandardCharsets.UTF_8));
        }
        return out;
    }

    @Test
    void splitsLinesAndDropsTheTooLongOnes() throws IOException {
        assertThat(read("a\r\nbb\n\nccc", 5)).containsExactly("a", "bb", "", "ccc");
        assertThat(read("12345\n123456\nx\n", 5)).containsExactly("12345", "<6 bytes>", "x");
        assertThat(read("", 5)).isEmpty();
        assertThat(read("\n", 5)).containsExactly("");
        String big = "y".repeat(200_000);
        assertThat(read(big + "\n" + big, 100_000)).containsExactly("<200000 bytes>", "<200000 bytes>");
        assertThat(read(big + "\nend\n", 300_000)).containsExactly(big, "end");
    }
}
