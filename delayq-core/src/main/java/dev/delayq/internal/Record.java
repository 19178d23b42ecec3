package dev.delayq.internal;

import dev.delayq.JobState;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Decoder of the packed job record written by the scripts (layout in {@code lua/includes/record.lua}).
 *
 * @param state       job state
 * @param attempt     attempts started so far (not counting leases handed back or that stalled)
 * @param maxAttempts the job's own max attempts, 0 = the worker's policy decides
 * @param seq         enqueue sequence (names the due-set member while scheduled)
 * @param createdMillis enqueue time, epoch ms (whole seconds, Redis clock), or -1 when not recorded
 * @param due         due ms when stored (not while scheduled), else -1
 * @param token       fencing token, 0 when absent
 * @param error       last error summary, or {@code null}
 * @param stalls      leases of this job that expired (its worker died, or a claim's reply was lost)
 * @param name        the job's name, or {@code null}
 * @param dedupeKey   the dedupe key it was enqueued with, or {@code null}
 * @param holdUntil   until when the dedupe key holds after the job ended (epoch ms), or -1
 * @param priority    0 to 9 (higher first)
 * @param timeoutMs   the job's own run time limit in ms, or 0
 * @param raw         the whole record (one with its finish time: the record without it, as a done record of state 3)
 * @param body        offset of the payload in {@code raw}
 * @param finishedAt  when a done job finished (epoch ms, Redis clock) when its record says (one that complete listed
 *                    in a done batch), else -1: the time is its done-set entry's score
 * @param traceparent the W3C traceparent the job was enqueued with, or {@code null}
 * @param tracestate  the W3C tracestate that goes with it, or {@code null}
 * @param group       the job's group, or {@code null}
 */
public record Record(JobState state, int attempt, int maxAttempts, long seq, long createdMillis, long due, long token,
                     String error, int stalls, String name, String dedupeKey, long holdUntil, int priority, long timeoutMs,
                     byte[] raw, int body, long finishedAt, String traceparent, String tracestate,
                     String group) {
    private static final int F_DUE = 8;
    private static final int F_TOKEN = 16;
    private static final int F_ERROR = 32;
    private static final int F_CREATED = 64;
    private static final int F_EXT = 128;
    /** 2020-01-01T00:00:00Z: the epoch of the stored enqueue time, in seconds. */
    private static final long CREATED_EPOCH = 1_577_836_800L;
    /** State code of a done record whose finish time (6 bytes, big-endian ms) follows its state byte: see record.lua. */
    private static final int DONE_AT = 5;
    private static final int FINISH_BYTES = 6;

    /**
     * Decodes a record.
     *
     * @throws CorruptRecordException when the bytes are not a record
     */
    public static Record decode(byte[] raw) {
        try {
            return read(raw);
        } catch (RuntimeException e) {
            throw new CorruptRecordException(e.getMessage());
        }
    }

    private static Record read(byte[] raw) {
        if (raw.length == 0) {
            throw new IllegalStateException("empty record");
        }
        int flags = raw[0] & 0xff;
        int code = flags & 7;
        long finished = -1;
        if (code == DONE_AT) {
            if (raw.length < 1 + FINISH_BYTES + 1) {
                throw new IllegalStateException("truncated record");
            }
            finished = finishTime(raw, 1);
            // The record as if written without the finish time: its state byte (done) and the rest.
            raw = Arrays.copyOfRange(raw, FINISH_BYTES, raw.length);
            flags = flags - DONE_AT + JobState.DONE.code();
            raw[0] = (byte) flags;
            code = flags & 7;
        }
        if ((code < 1 || code > 4) && code != JobState.WAITING.code()) {
            throw new IllegalStateException("unknown state " + code);
        }
        int[] pos = {1};
        long seq = varint(raw, pos);
        long created = (flags & F_CREATED) != 0 ? (varint(raw, pos) + CREATED_EPOCH) * 1000 : -1;
        long due = (flags & F_DUE) != 0 ? varint(raw, pos) : -1;
        long token = (flags & F_TOKEN) != 0 ? varint(raw, pos) : 0;
        String error = (flags & F_ERROR) != 0 ? text(raw, pos) : null;
        int attempt = 0;
        int max = 0;
        int stalls = 0;
        String name = null;
        String dedupe = null;
        long hold = -1;
        int priority = 0;
        long timeout = 0;
        String trace = null;
        String group = null;
        if ((flags & F_EXT) != 0) {
            long mask = varint(raw, pos);
            attempt = (mask & 1) != 0 ? (int) varint(raw, pos) : 0;
            max = (mask & 2) != 0 ? (int) varint(raw, pos) : 0;
            stalls = (mask & 4) != 0 ? (int) varint(raw, pos) : 0;
            name = (mask & 8) != 0 ? text(raw, pos) : null;
            if ((mask & 16) != 0) {
                dedupe = text(raw, pos);
                hold = varint(raw, pos);
            }
            priority = (mask & 32) != 0 ? (int) varint(raw, pos) : 0;
            timeout = (mask & 64) != 0 ? varint(raw, pos) : 0;
            trace = (mask & 128) != 0 ? text(raw, pos) : null;
            group = (mask & 512) != 0 ? text(raw, pos) : null;
        }
        if (pos[0] > raw.length) {
            throw new IllegalStateException("truncated record");
        }
        // The trace context: the traceparent, then a zero byte and the tracestate when there is one.
        int cut = trace == null ? -1 : trace.indexOf('\0');
        return new Record(JobState.ofCode(code), attempt, max, seq, created, due, token, error, stalls, name, dedupe, hold,
                priority, timeout, raw, pos[0], finished, cut < 0 ? trace : trace.substring(0, cut),
                cut < 0 ? null : trace.substring(cut + 1), group);
    }

    /**
     * This record with a lease overlay applied: what claim returns for a job it leased without rewriting the record
     * (layout in {@code lua/includes/record.lua}: a state byte, then the varints token, due ms and attempt).
     *
     * @throws CorruptRecordException when the overlay cannot be read
     */
    public Record withOverlay(byte[] overlay) {
        return withOverlay(overlay, new int[] {0});
    }

    /** As {@link #withOverlay(byte[])}, for an overlay at {@code bytes[pos[0]]}; {@code pos[0]} is left after it. */
    public Record withOverlay(byte[] overlay, int[] pos) {
        try {
            int first = overlay[pos[0]++] & 0xff;
            int code = first & 7;
            long finished = finishedAt;
            if (code == DONE_AT && first <= 15) {
                finished = finishTime(overlay, pos[0]);
                pos[0] += FINISH_BYTES;
                code = JobState.DONE.code();
            }
            if (code < 2 || code > 3 || first > 15) {
                throw new IllegalStateException("unknown overlay state " + first);
            }
            long token = varint(overlay, pos);
            long due = varint(overlay, pos);
            int attempt = (int) varint(overlay, pos);
            return new Record(JobState.ofCode(code), attempt, maxAttempts, seq, createdMillis, due, token, error, stalls,
                    name, dedupeKey, holdUntil, priority, timeoutMs, raw, body, finished, traceparent, tracestate, group);
        } catch (RuntimeException e) {
            throw new CorruptRecordException("lease overlay: " + e.getMessage());
        }
    }

    /** A copy of the payload bytes. */
    public byte[] payload() {
        return Arrays.copyOfRange(raw, body, raw.length);
    }

    /** The finish time ms in the 6 bytes at {@code b[from]}, big-endian. */
    private static long finishTime(byte[] b, int from) {
        if (from + FINISH_BYTES > b.length) {
            throw new IllegalStateException("truncated finish time");
        }
        long ms = 0;
        for (int i = from; i < from + FINISH_BYTES; i++) {
            ms = ms << 8 | (b[i] & 0xff);
        }
        return ms;
    }

    private static String text(byte[] b, int[] pos) {
        int len = (int) varint(b, pos);
        if (len < 0 || pos[0] + len > b.length) {
            throw new IllegalStateException("truncated record");
        }
        String s = new String(b, pos[0], len, StandardCharsets.UTF_8);
        pos[0] += len;
        return s;
    }

    private static long varint(byte[] b, int[] pos) {
        long n = 0;
        int shift = 0;
        while (true) {
            if (pos[0] >= b.length || shift > 56) {
                throw new IllegalStateException("truncated record");
            }
            int v = b[pos[0]++] & 0xff;
            n |= (long) (v & 0x7f) << shift;
            if (v < 0x80) {
                return n;
            }
            shift += 7;
        }
    }

    /** A stored record that cannot be decoded (written by something other than delayq's scripts, or damaged). */
    public static final class CorruptRecordException extends IllegalStateException {
        CorruptRecordException(String detail) {
            super("record cannot be decoded (" + detail + ")");
        }
    }
}
