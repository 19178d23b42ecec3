package dev.delayq.internal.redis;

import dev.delayq.internal.base.ScriptLimits;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Lua scripts, one per state change, loaded from {@code dev/delayq/lua/<name>.lua}. Lines
 * {@code -- @include x} (consecutive, before the script's own code) bring in {@code includes/x.lua}, so shared
 * pieces (the record codec, the wake-up notice, lease recovery) exist once in the source.
 *
 * <p>Only the definitions a script uses come in: an include is a sequence of top-level {@code local} definitions
 * (functions and constants, each starting at column 0 with {@code local}), and a definition is kept when its name
 * appears in the script's own code or in a kept definition, outside lines that are only a comment (a name in a
 * string or after code on a line keeps it too, which is only ever too many). Redis runs a script's top level on
 * every call, and each {@code local function} is a closure made and collected per call: the whole library cost
 * about 77,000 instructions a call, of which a {@code get} uses 27,000 (docs/perf/journal.md,
 * "A script's fixed cost").
 *
 * <p>A limit the Java side shares with a script is written in the script as {@code {{NAME}}}, which is replaced by its
 * value from {@link ScriptLimits} (defined once there); an unknown name, or a {@code {{} left over, fails the load.
 * What each script takes and answers is declared beside the class that calls it ({@code internal.ops}, one
 * {@code Protocol} per constant here).
 */
public enum Script {
    ENQUEUE("enqueue"),
    CLAIM("claim"),
    COMPLETE("complete"),
    FAIL("fail"),
    RENEW("renew"),
    RELEASE("release"),
    RECOVER("recover"),
    CANCEL("cancel"),
    CANCEL_BY_DEDUPE("cancel_by_dedupe"),
    DELETE("delete"),
    RESCHEDULE("reschedule"),
    RESCHEDULE_BY_DEDUPE("reschedule_by_dedupe"),
    RETRY_DEAD("retry_dead"),
    RETRY_DEAD_ALL("retry_dead_all"),
    PURGE("purge"),
    GET("get"),
    GET_BY_DEDUPE("get_by_dedupe"),
    ERRORS("errors"),
    LINKS("links"),
    PARENT_RESULTS("parent_results"),
    FLOW_IDS("flow_ids"),
    REMOTE_LINK("remote_link"),
    NOTICES("notices"),
    NOTICE_APPLY("notice_apply"),
    LIST("list"),
    LIST_DUE("list_due"),
    LIST_BATCHES("list_batches"),
    STATS("stats"),
    STATS_MANY("stats_many"),
    GROUP_STATS("group_stats"),
    CHECK("check"),
    PAUSE("pause"),
    RESUME("resume"),
    HISTORY("history"),
    SETTINGS("settings"),
    PROGRESS("progress"),
    SCHEDULE("schedule"),
    SCHEDULE_READ("schedule_read"),
    WORKER_BEAT("worker_beat"),
    WORKER_GONE("worker_gone"),
    WORKERS("workers");

    private final String fileName;
    private final byte[] source;
    private final String sha;

    Script(String fileName) {
        this.fileName = fileName;
        String text = limits(expand(read(fileName + ".lua")), fileName);
        this.source = text.getBytes(StandardCharsets.UTF_8);
        this.sha = sha1(source);
    }

    /** The script's file name without {@code .lua}. */
    public String fileName() {
        return fileName;
    }

    /** The full source with includes expanded, as sent by SCRIPT LOAD. */
    public byte[] source() {
        return source.clone();
    }

    byte[] sourceUnsafe() {
        return source;
    }

    /** The SHA-1 that EVALSHA names it by. */
    public String sha() {
        return sha;
    }

    /**
     * {@code text} with each {@code {{NAME}}} replaced by the value of {@link ScriptLimits#PLACEHOLDERS}; an unknown
     * name, or a {@code {{} that is not a placeholder, fails ({@code script} names the script in the message).
     */
    public static String limits(String text, String script) {
        String out = Placeholder.PATTERN.matcher(text).replaceAll(m -> {
            Long value = ScriptLimits.PLACEHOLDERS.get(m.group(1));
            if (value == null) {
                throw new IllegalStateException("script " + script + " names the unknown limit {{" + m.group(1)
                        + "}}; known: " + new java.util.TreeSet<>(ScriptLimits.PLACEHOLDERS.keySet()));
            }
            return Long.toString(value);
        });
        int left = out.indexOf("{{");
        if (left >= 0) {
            throw new IllegalStateException("script " + script + " has an unexpanded placeholder: "
                    + out.substring(left, Math.min(out.length(), left + 40)).lines().findFirst().orElse(""));
        }
        return out;
    }

    /** {@code text} with its include lines replaced by the definitions of those includes that it uses. */
    static String expand(String text) {
        Matcher m = Include.PATTERN.matcher(text);
        List<String> includes = new ArrayList<>();
        int first = -1;
        int end = -1;
        while (m.find()) {
            if (first >= 0 && m.start() != end) {
                throw new IllegalStateException("a script's -- @include lines must be consecutive: " + m.group());
            }
            if (first < 0) {
                first = m.start();
            }
            end = m.end();
            includes.add(m.group(1));
        }
        if (includes.isEmpty()) {
            return text;
        }
        List<Definition> defs = new ArrayList<>();
        for (String name : includes) {
            defs.addAll(Include.definitions(name));
        }
        String head = text.substring(0, first);
        String tail = text.substring(end);
        return head + used(head + tail, defs) + tail;
    }

    /** The definitions whose names {@code code} uses, directly or through other kept ones, in their order. */
    private static String used(String code, List<Definition> defs) {
        Set<String> wanted = new HashSet<>(Definition.names(code));
        boolean[] kept = new boolean[defs.size()];
        boolean more = true;
        while (more) {
            more = false;
            for (int i = 0; i < defs.size(); i++) {
                if (!kept[i] && defs.get(i).defines.stream().anyMatch(wanted::contains)) {
                    kept[i] = true;
                    wanted.addAll(defs.get(i).uses);
                    more = true;
                }
            }
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < defs.size(); i++) {
            if (kept[i]) {
                out.append(defs.get(i).text);
            }
        }
        return out.toString();
    }

    /**
     * One top-level definition of an include: from its {@code local} line (with the comment lines right above it)
     * to the next one's, the names it defines ({@code local function f}, {@code local A, B = ...}) and the names it
     * uses.
     */
    private record Definition(List<String> defines, String text, Set<String> uses) {
        private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
        private static final Pattern FUNCTION = Pattern.compile("^local\\s+function\\s+([A-Za-z_][A-Za-z0-9_]*)");
        private static final Pattern VARIABLES = Pattern.compile("^local\\s+([A-Za-z_][A-Za-z0-9_]*(\\s*,\\s*[A-Za-z_][A-Za-z0-9_]*)*)\\s*=");

        static List<Definition> split(String include) {
            List<Definition> out = new ArrayList<>();
            List<String> lines = include.lines().toList();
            int start = -1;
            for (int i = 0; i <= lines.size(); i++) {
                if (i == lines.size() || lines.get(i).startsWith("local ")) {
                    if (start >= 0) {
                        int stop = i;
                        while (i < lines.size() && stop > start + 1 && lines.get(stop - 1).startsWith("--")) {
                            stop--; // the comment right above the next definition is the next one's
                        }
                        out.add(of(lines.subList(start, stop)));
                        start = stop;
                    } else {
                        start = i;
                        while (start > 0 && lines.get(start - 1).startsWith("--")) {
                            start--;
                        }
                    }
                } else if (start < 0 && !lines.get(i).isBlank() && !lines.get(i).startsWith("--")) {
                    throw new IllegalStateException("an include holds only top-level local definitions, found: " + lines.get(i));
                }
            }
            return out;
        }

        private static Definition of(List<String> lines) {
            String head = lines.stream().filter(l -> l.startsWith("local ")).findFirst().orElseThrow();
            Matcher f = FUNCTION.matcher(head);
            Matcher v = VARIABLES.matcher(head);
            List<String> defines;
            if (f.find()) {
                defines = List.of(f.group(1));
            } else if (v.find()) {
                defines = List.of(v.group(1).split("\\s*,\\s*"));
            } else {
                throw new IllegalStateException("an include's definition must be 'local function f' or 'local a = ...': " + head);
            }
            String text = String.join("\n", lines) + "\n";
            return new Definition(defines, text, names(text));
        }

        /** The names {@code code} mentions, outside lines that are only a comment. */
        static Set<String> names(String code) {
            Set<String> out = new HashSet<>();
            code.lines().filter(l -> !l.stripLeading().startsWith("--")).forEach(l -> {
                Matcher m = NAME.matcher(l);
                while (m.find()) {
                    out.add(m.group());
                }
            });
            return out;
        }
    }

    /** Holder: enum constants are built before the enum's own static fields. */
    private static final class Placeholder {
        static final Pattern PATTERN = Pattern.compile("\\{\\{([A-Z][A-Z0-9_]*)}}");
    }

    /** Holder: enum constants are built before the enum's own static fields. */
    private static final class Include {
        static final Pattern PATTERN = Pattern.compile("(?m)^-- @include (\\w+)[ \\t]*(\\R|\\z)");
        /** Each include read and split once, however many scripts bring it in. */
        private static final Map<String, List<Definition>> DEFINITIONS = new ConcurrentHashMap<>();

        static List<Definition> definitions(String name) {
            return DEFINITIONS.computeIfAbsent(name, n -> Definition.split(read("includes/" + n + ".lua")));
        }
    }

    private static String read(String name) {
        // Class.getResourceAsStream, not the class loader's: in the named module dev.delayq the scripts' folder is a
        // package of the module that it does not open, which only the module's own classes may read.
        String path = "/dev/delayq/lua/" + name;
        try (InputStream in = Script.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("script resource missing: " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path, e);
        }
    }

    private static String sha1(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
