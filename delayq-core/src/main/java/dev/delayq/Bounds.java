package dev.delayq;

import dev.delayq.internal.base.Validation;
import java.time.Duration;
import java.time.Instant;

/** The bounds delayq validates input against (sizes, ranges, the latest due time). */
public final class Bounds {
    /** Longest job id, in UTF-8 bytes. */
    public static final int MAX_ID_BYTES = Validation.MAX_ID_BYTES;
    /** Longest dedupe key, in UTF-8 bytes. */
    public static final int MAX_DEDUPE_KEY_BYTES = Validation.MAX_DEDUPE_KEY_BYTES;
    /** Longest queue name, in characters. */
    public static final int MAX_QUEUE_NAME = Validation.MAX_QUEUE_NAME;
    /** Longest key prefix, in characters. */
    public static final int MAX_PREFIX = Validation.MAX_PREFIX;
    /** Most partitions a queue may have. */
    public static final int MAX_PARTITIONS = 256;
    /** Most parents one job may wait for ({@link Job.Builder#after(String...)}). */
    public static final int MAX_PARENTS = dev.delayq.internal.base.ScriptLimits.MAX_PARENTS;
    /** Largest result a handler may leave with its done job ({@link JobContext#result(byte[])}), in bytes: 64 KiB. */
    public static final int MAX_RESULT_BYTES = dev.delayq.internal.base.ScriptLimits.MAX_RESULT_BYTES;
    /** Largest max-attempts value. */
    public static final int MAX_ATTEMPTS = Validation.MAX_ATTEMPTS;
    /** Largest payload limit a client may configure (Redis's own bulk limit is 512 MiB). */
    public static final int MAX_PAYLOAD_LIMIT = 256 * 1024 * 1024;
    /**
     * Default payload limit: 256 KiB. Every state change of a job rewrites its record, and a claim carries whole
     * payloads: keep large data elsewhere (a database, object storage) and enqueue a reference to it.
     */
    public static final int DEFAULT_MAX_PAYLOAD = 256 * 1024;
    /** Longest job name, in UTF-8 bytes. */
    public static final int MAX_NAME_BYTES = Validation.MAX_NAME_BYTES;
    /** Longest dedupe TTL: 10 years. */
    public static final Duration MAX_DEDUPE_TTL = Duration.ofDays(3652);
    /** Longest lease: 1 day (a crashed worker's jobs come back within it; long jobs renew theirs). */
    public static final Duration MAX_LEASE = Duration.ofDays(1);
    /**
     * Longest job timeout, a job's own ({@code Job.Builder.timeout}) and a worker's default
     * ({@code Worker.Builder.jobTimeout}, {@code delayq work --job-timeout}) alike: 1 day. A run that may take longer
     * needs no timeout: its lease is renewed while it runs.
     */
    public static final Duration MAX_JOB_TIMEOUT = Validation.MAX_JOB_TIMEOUT;
    /** Longest retry backoff (base or cap): 30 days. */
    public static final Duration MAX_BACKOFF = Duration.ofDays(30);
    /** Longest delay, retention or other span: as far as the latest due time is from 1970. */
    public static final Duration MAX_SPAN = Validation.MAX_SPAN;
    /** Longest error summary kept with a job, in UTF-8 bytes (longer ones are cut). */
    public static final int MAX_ERROR_BYTES = 2048;
    /** The latest due time: 9999-12-31T23:59:59.999Z. */
    public static final Instant MAX_DUE = Validation.MAX_DUE;

    private Bounds() {
    }
}
