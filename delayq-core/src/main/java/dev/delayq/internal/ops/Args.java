package dev.delayq.internal.ops;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;

/** Encodes script arguments: numbers as ASCII decimals, text as UTF-8. */
final class Args {
    static final byte[] ONE = {'1'};
    static final byte[] ZERO = {'0'};
    static final byte[] EMPTY = {};

    private Args() {
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] num(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] flag(boolean b) {
        return b ? ONE : ZERO;
    }

    /** A seed for the script's {@code math.random} (Redis seeds it identically for every script run). */
    static byte[] seed() {
        return num(ThreadLocalRandom.current().nextInt(1, Integer.MAX_VALUE));
    }
}
