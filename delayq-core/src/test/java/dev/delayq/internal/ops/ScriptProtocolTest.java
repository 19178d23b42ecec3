package dev.delayq.internal.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.internal.redis.Script;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/**
 * Each script's declared {@link Protocol} (in the class that calls it) against the script itself: its header names the
 * same KEYS ({@code -- KEYS[n] due zset}), the same ARGV in the same order ({@code -- ARGV[n] lease ms}: the words of
 * the constant's name start the slot's description), the same repeated arguments ({@code -- ARGV[n..] per lease: id,
 * token}) and the same reply ({@code Returns { now, next_due, ..., id_1, record_1, ... }}); and every
 * {@code whole(ARGV[n], min, max)} check in its code is a bound the declaration names, and the other way round.
 */
class ScriptProtocolTest {
    private static final Pattern KEY = Pattern.compile("KEYS\\[(\\d+)]\\s+(.+?)(?=\\s{2,}KEYS\\[|$)");
    private static final Pattern ARG = Pattern.compile("ARGV\\[(\\d+)(\\.\\.)?]\\s+(.+?)(?=\\s{2,}ARGV\\[|$)");
    private static final Pattern RETURNS = Pattern.compile("Returns[^{.;]*\\{([^}]*)}");
    private static final Pattern WHOLE = Pattern.compile(
            "whole\\(ARGV\\[(\\d+)],\\s*(-?\\d+(?:\\s*\\^\\s*\\d+)?),\\s*(-?\\d+(?:\\s*\\^\\s*\\d+)?)\\)");

    @ParameterizedTest
    @EnumSource(Script.class)
    void theHeaderNamesWhatTheDeclarationDeclares(Script script) {
        Protocol p = Protocol.of(script);
        assertThat(p.script).as("the declaration of %s names it", script).isSameAs(script);
        List<String> header = header(read(script.fileName() + ".lua"));

        List<String> keys = new ArrayList<>();
        List<String> args = new ArrayList<>();
        String each = null;
        String returns = null;
        for (String line : header) {
            Matcher k = KEY.matcher(line);
            while (k.find()) {
                assertThat(Integer.parseInt(k.group(1))).as("%s: KEYS numbered in order", script).isEqualTo(keys.size() + 1);
                keys.add(k.group(2));
            }
            Matcher a = ARG.matcher(line);
            while (a.find()) {
                if (a.group(2) != null) {
                    assertThat(Integer.parseInt(a.group(1))).as("%s: repeated ARGV right after the fixed ones", script)
                            .isEqualTo(args.size() + 1);
                    each = a.group(3);
                } else {
                    assertThat(Integer.parseInt(a.group(1))).as("%s: ARGV numbered in order", script).isEqualTo(args.size() + 1);
                    args.add(a.group(3));
                }
            }
        }
        Matcher r = RETURNS.matcher(String.join(" ", header));
        if (r.find()) {
            returns = r.group(1);
        }

        assertThat(keys).as("%s: KEYS", script).hasSize(p.keys.length);
        for (int i = 0; i < keys.size(); i++) {
            String words = keys.get(i);
            assertThat(words.equals(p.keys[i].header) || words.startsWith(p.keys[i].header + " "))
                    .as("%s: KEYS[%d] is '%s', declared %s (%s)", script, i + 1, words, p.keys[i], p.keys[i].header).isTrue();
        }
        assertThat(args).as("%s: ARGV", script).hasSize(p.args.size());
        for (int i = 0; i < args.size(); i++) {
            assertThat(startsWithWords(args.get(i), p.args.get(i)))
                    .as("%s: ARGV[%d] is '%s', declared %s", script, i + 1, args.get(i), p.args.get(i)).isTrue();
        }
        if (p.each.isEmpty()) {
            assertThat(each).as("%s: repeated ARGV", script).isNull();
        } else {
            assertThat(each).as("%s: repeated ARGV %s", script, p.each).isNotNull();
            String names = each.substring(each.indexOf(':') + 1);
            assertThat(names(names)).as("%s: repeated ARGV", script).isEqualTo(lower(p.each));
        }

        assertThat(returns).as("%s: a 'Returns { ... }' line", script).isNotNull();
        List<String> fields = names(returns);
        List<String> fixed = fields.stream().filter(f -> !f.endsWith("_1") && !f.equals("...")).toList();
        List<String> items = fields.stream().filter(f -> f.endsWith("_1")).map(f -> f.substring(0, f.length() - 2)).toList();
        assertThat(fixed).as("%s: the reply's fields", script).isEqualTo(lower(p.reply));
        assertThat(items).as("%s: the reply's repeated fields", script).isEqualTo(lower(p.replyEach));
    }

    @ParameterizedTest
    @EnumSource(Script.class)
    void everyArgumentCheckOfTheScriptIsADeclaredBound(Script script) {
        Protocol p = Protocol.of(script);
        String source = new String(script.source(), StandardCharsets.UTF_8);
        Map<Integer, long[]> found = new HashMap<>();
        Matcher m = WHOLE.matcher(source);
        while (m.find()) {
            found.put(Integer.parseInt(m.group(1)) - 1, new long[] {value(m.group(2)), value(m.group(3))});
        }
        assertThat(found.keySet()).as("%s: the ARGV checked with whole(...)", script).isEqualTo(p.bounds.keySet());
        found.forEach((i, b) -> assertThat(b).as("%s: bounds of ARGV[%d] (%s)", script, i + 1, p.args.get(i))
                .containsExactly(p.bounds.get(i)));
    }

    @Test
    void theSharedLimitsAreWrittenIntoTheScripts() {
        String claim = new String(Script.CLAIM.source(), StandardCharsets.UTF_8);
        assertThat(claim).contains("whole(ARGV[1], 0, 1000)").doesNotContain("{{");
        for (Script s : Script.values()) {
            assertThat(new String(s.source(), StandardCharsets.UTF_8)).as(s.fileName()).doesNotContain("{{");
        }
    }

    @Test
    void theDeclarationsAreBuiltOncePerScriptAndNameEveryOne() {
        assertThat(Arrays.stream(Script.values()).map(Protocol::of).distinct()).hasSize(Script.values().length);
    }

    /** A placeholder the limits do not define, or a left-over {{, fails the load with a message naming it. */
    @Test
    void anUnknownOrUnexpandedPlaceholderFails() {
        assertThat(Script.limits("return {{MAX_BATCH}}", "x")).isEqualTo("return 1000");
        assertThatThrownBy(() -> Script.limits("return {{MAX_BACH}}", "x")).hasMessageContaining("unknown limit {{MAX_BACH}}")
                .hasMessageContaining("MAX_BATCH");
        assertThatThrownBy(() -> Script.limits("return {{ MAX_BATCH }}", "x")).hasMessageContaining("unexpanded placeholder");
    }

    /** The comment lines before the first line of code (includes and code end the header). */
    private static List<String> header(String lua) {
        List<String> out = new ArrayList<>();
        for (String line : lua.lines().toList()) {
            if (!line.startsWith("--") || line.startsWith("-- @include")) {
                break;
            }
            out.add(line.substring(2).strip());
        }
        return out;
    }

    /** Whether {@code text} starts with the words of the constant {@code name} ({@code LEASE_MS}: "lease ms"). */
    private static boolean startsWithWords(String text, String name) {
        String t = text.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", " ").strip();
        String words = name.toLowerCase(Locale.ROOT).replace('_', ' ');
        return t.equals(words) || t.startsWith(words + " ");
    }

    /** The names in a list "a, b (note), c" or "a | b". */
    private static List<String> names(String list) {
        List<String> out = new ArrayList<>();
        for (String part : list.replaceAll("\\([^)]*\\)", "").split("[,|]")) {
            String name = part.strip();
            if (!name.isEmpty()) {
                out.add(name.split("\\s+")[0]);
            }
        }
        return out;
    }

    private static List<String> lower(List<String> names) {
        return names.stream().map(n -> n.toLowerCase(Locale.ROOT)).toList();
    }

    private static long value(String expr) {
        String[] p = expr.split("\\^");
        return p.length == 1 ? Long.parseLong(p[0].strip()) : (long) Math.pow(Long.parseLong(p[0].strip()), Long.parseLong(p[1].strip()));
    }

    private static String read(String name) {
        try (InputStream in = Script.class.getResourceAsStream("/dev/delayq/lua/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
