package dev.delayq.cli;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Text helpers for output. */
public final class Text {
    private Text() {
    }

    /** The bytes as UTF-8 text, or {@code null} when they are not valid UTF-8. */
    public static String utf8OrNull(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /** A one-line, length-limited rendering for tables. */
    public static String oneLine(String s, int max) {
        if (s == null) {
            return "";
        }
        String flat = s.replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t");
        return flat.length() <= max ? flat : flat.substring(0, Math.max(0, max - 3)) + "...";
    }
}
