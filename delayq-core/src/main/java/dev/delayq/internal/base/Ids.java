package dev.delayq.internal.base;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Generated job ids: 12 random base-62 characters (71 bits). Generated on the client, not in the script,
 * so that an enqueue re-sent after a lost reply finds its own job instead of creating a second one; short,
 * so that a job costs little memory (the id is stored twice: hash field and due-set member).
 */
public final class Ids {
    private static final char[] ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".toCharArray();
    private static final int LENGTH = 12;

    private Ids() {
    }

    /** A new random id. */
    public static String generate() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        char[] out = new char[LENGTH];
        for (int i = 0; i < LENGTH; i++) {
            out[i] = ALPHABET[r.nextInt(ALPHABET.length)];
        }
        return new String(out);
    }
}
