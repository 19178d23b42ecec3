package dev.delayq;

import java.time.Instant;

/** The bounds delayq validates input against (sizes, ranges, the latest due time). */
public final class Bounds {
    /** Longest job id, in UTF-8 bytes. */
    public static final int MAX_ID_BYTES = 512;
    /** Longest dedupe key, in UTF-8 bytes. */
    public static final int MAX_DEDUPE_KEY_BYTES = 512;
    /** Longest queue name, in characters. */
    public static final int MAX_QUEUE_NAME = 128;
    /** Longest key prefix, in characters. */
    public static final int MAX_PREFIX = 64;
    /** Most partitions a queue may have. */
    public static final int MAX_PARTITIONS = 256;
    /** Largest max-attempts value. */
    public static final int MAX_ATTEMPTS = 1_000_000;
    /** Largest payload limit a client may configure (Redis's own bulk limit is 512 MiB). */
    public static final int MAX_PAYLOAD_LIMIT = 256 * 1024 * 1024;
    /** Default payload limit: 1 MiB. */
    public static final int DEFAULT_MAX_PAYLOAD = 1024 * 1024;
    /** Longest error summary kept with a job, in UTF-8 bytes (longer ones are cut). */
    public static final int MAX_ERROR_BYTES = 2048;
    /** The latest due time: 9999-12-31T23:59:59.999Z. */
    public static final Instant MAX_DUE = Instant.ofEpochMilli(253_402_300_799_999L);

    private Bounds() {
    }
}
