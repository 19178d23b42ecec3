package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The one rule for user data in text output: as it is when it cannot be misread, else quoted with escapes. */
class TextTest {
    @Test
    void aFieldIsBareOnlyWhenItCannotBeMisread() {
        assertThat(Text.field("order-731:timeout")).isEqualTo("order-731:timeout");
        assertThat(Text.field("日本-🐢")).isEqualTo("日本-🐢");
        assertThat(Text.field("a b")).isEqualTo("\"a b\"");
        assertThat(Text.field(" lead")).isEqualTo("\" lead\"");
        assertThat(Text.field("")).isEqualTo("\"\"");
        assertThat(Text.field("-")).isEqualTo("\"-\""); // a bare dash means "none"
        assertThat(Text.field(null)).isEqualTo("-");
        assertThat(Text.field("say \"hi\"")).isEqualTo("\"say \\\"hi\\\"\"");
        assertThat(Text.field("a\\b")).isEqualTo("\"a\\\\b\"");
        assertThat(Text.field("1\n2\r3\t4")).isEqualTo("\"1\\n2\\r3\\t4\"");
        assertThat(Text.field("bell\u0007")).isEqualTo("\"bell\\u0007\"");
        assertThat(Text.field("rtl\u202eoverride")).isEqualTo("\"rtl\\u202eoverride\"");
        assertThat(Text.field("no\u00a0break")).isEqualTo("\"no\\u00a0break\"");
        assertThat(Text.field("lone\ud800")).isEqualTo("\"lone\\ud800\"");
        assertThat(Text.field("tag\udb40\udc01")).isEqualTo("\"tag\\udb40\\udc01\""); // U+E0001, a format character
    }

    @Test
    void cutNeverSplitsASurrogatePair() {
        assertThat(Text.cut("abcdef", 10)).isEqualTo("abcdef");
        assertThat(Text.cut("abcdefghij", 6)).isEqualTo("abc...");
        assertThat(Text.cut("ab🐢cdefg", 6)).isEqualTo("ab...");
        assertThat(Text.cut("ab🐢cdefg", 7)).isEqualTo("ab🐢...");
        assertThat(Text.cut(null, 5)).isNull();
    }
}
