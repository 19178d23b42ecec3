package dev.delayq.internal.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Lua scripts, one per state change, loaded from {@code dev/delayq/lua/<name>.lua}. A line
 * {@code -- @include x} is replaced by {@code includes/x.lua}, so shared pieces (the record codec, the
 * wake-up notice, lease recovery) exist once in the source and whole in every script Redis runs.
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
    RESCHEDULE("reschedule"),
    RETRY_DEAD("retry_dead"),
    PURGE("purge"),
    GET("get"),
    LIST("list"),
    STATS("stats"),
    CHECK("check"),
    PAUSE("pause"),
    HISTORY("history"),
    SETTINGS("settings"),
    PROGRESS("progress"),
    SCHEDULE("schedule"),
    SCHEDULE_READ("schedule_read");

    private final String fileName;
    private final byte[] source;
    private final String sha;

    Script(String fileName) {
        this.fileName = fileName;
        String text = expand(read(fileName + ".lua"));
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

    private static String expand(String text) {
        Matcher m = Include.PATTERN.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(read("includes/" + m.group(1) + ".lua")));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** Holder: enum constants are built before the enum's own static fields. */
    private static final class Include {
        static final Pattern PATTERN = Pattern.compile("(?m)^-- @include (\\w+)\\s*$");
    }

    private static String read(String name) {
        String path = "dev/delayq/lua/" + name;
        try (InputStream in = Script.class.getClassLoader().getResourceAsStream(path)) {
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
