package dev.delayq.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A script gets the definitions of its includes that it uses, and nothing it uses is left out. The check here reads
 * Lua differently from {@link Script}'s (comments and strings removed by a small lexer, field names after {@code .}
 * or {@code :} not counted), so a mistake in either shows.
 */
class ScriptIncludesTest {
    private static final List<String> INCLUDES = List.of("record", "flow", "jobs", "notify", "recover", "remove", "revive", "page");
    private static final Pattern DEFINITION = Pattern.compile("(?m)^local\\s+(?:function\\s+(\\w+)|(\\w+(?:\\s*,\\s*\\w+)*)\\s*=)");
    /** A name not right after a letter, a digit, {@code :} or a single {@code .} (a field), but after {@code ..}. */
    private static final Pattern NAME = Pattern.compile("(?<![\\w:])(?<!(?<!\\.)\\.)([A-Za-z_]\\w*)");

    @Test
    void everyIncludedNameAScriptUsesIsDefinedInIt() {
        Set<String> library = new LinkedHashSet<>();
        for (String include : INCLUDES) {
            library.addAll(defined(read("includes/" + include + ".lua")));
        }
        assertThat(library).contains("decode", "int", "flow_config", "recover_expired", "head_score", "PRIO_BAND");
        for (Script script : Script.values()) {
            String source = new String(script.source(), StandardCharsets.UTF_8);
            Set<String> defined = defined(source);
            List<String> missing = new ArrayList<>();
            for (String name : used(source)) {
                if (library.contains(name) && !defined.contains(name)) {
                    missing.add(name);
                }
            }
            assertThat(missing).as("names %s uses but does not define", script.fileName()).isEmpty();
        }
    }

    @Test
    void aScriptGetsOnlyTheDefinitionsItUsesInTheirOrder() {
        String shaken = Script.expand("-- a script\n-- @include record\n-- @include flow\nreturn int(has_prio(3, 1) and 1 or 0)\n");
        assertThat(defined(shaken)).containsExactly("int", "has_prio");
        assertThat(shaken).startsWith("-- a script\n").endsWith("return int(has_prio(3, 1) and 1 or 0)\n");

        String uses = Script.expand("-- @include record\nreturn decode(ARGV[1]).state\n");
        assertThat(defined(uses)).contains("decode", "decode_numeric", "decode_general", "window_varint", "WINDOW")
                .doesNotContain("encode", "lease_fresh", "int");

        String stats = new String(Script.STATS.source(), StandardCharsets.UTF_8);
        assertThat(defined(stats)).contains("flow_config", "earliest_due").doesNotContain("decode", "encode", "recover_expired");
        String whole = Pattern.compile("(?m)^-- @include (\\w+)$").matcher(read("stats.lua"))
                .replaceAll(m -> Matcher.quoteReplacement(read("includes/" + m.group(1) + ".lua")));
        assertThat(stats.length()).isLessThan(whole.length() / 2);
    }

    @Test
    void includeLinesMustBeConsecutive() {
        assertThatThrownBy(() -> Script.expand("-- @include record\nlocal x = 1\n-- @include flow\nreturn x\n"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("consecutive");
    }

    /** The top-level names {@code lua} defines ({@code local function f} or {@code local a, b = ...} at column 0), in order. */
    private static Set<String> defined(String lua) {
        Set<String> out = new LinkedHashSet<>();
        Matcher m = DEFINITION.matcher(lua);
        while (m.find()) {
            if (m.group(1) != null) {
                out.add(m.group(1));
            } else {
                out.addAll(List.of(m.group(2).split("\\s*,\\s*")));
            }
        }
        return out;
    }

    /** Names {@code lua} refers to as variables: not in comments or strings, not field names after . or :. */
    private static Set<String> used(String lua) {
        Set<String> out = new LinkedHashSet<>();
        Matcher m = NAME.matcher(code(lua));
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    /** {@code lua} with its comments and string literals blanked out. */
    private static String code(String lua) {
        StringBuilder out = new StringBuilder(lua.length());
        int i = 0;
        int n = lua.length();
        while (i < n) {
            char c = lua.charAt(i);
            if (lua.startsWith("--", i)) {
                int level = longBracket(lua, i + 2);
                i = level >= 0 ? closeLong(lua, i + 2, level) : lineEnd(lua, i);
                out.append(' ');
            } else if (c == '\'' || c == '"') {
                int j = i + 1;
                while (j < n && lua.charAt(j) != c) {
                    j += lua.charAt(j) == '\\' ? 2 : 1;
                }
                i = j + 1;
                out.append(" \"\" ");
            } else if (c == '[' && longBracket(lua, i) >= 0) {
                i = closeLong(lua, i, longBracket(lua, i));
                out.append(" \"\" ");
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    /** The level of a long bracket opening at {@code i} ({@code [[} is 0, {@code [=[} is 1), or -1. */
    private static int longBracket(String s, int i) {
        if (i >= s.length() || s.charAt(i) != '[') {
            return -1;
        }
        int j = i + 1;
        while (j < s.length() && s.charAt(j) == '=') {
            j++;
        }
        return j < s.length() && s.charAt(j) == '[' ? j - i - 1 : -1;
    }

    private static int closeLong(String s, int open, int level) {
        String close = "]" + "=".repeat(level) + "]";
        int at = s.indexOf(close, open);
        return at < 0 ? s.length() : at + close.length();
    }

    private static int lineEnd(String s, int i) {
        int at = s.indexOf('\n', i);
        return at < 0 ? s.length() : at;
    }

    private static String read(String name) {
        try (InputStream in = ScriptIncludesTest.class.getClassLoader().getResourceAsStream("dev/delayq/lua/" + name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
