package dev.delayq.internal;

import dev.delayq.JobState;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Decoder of the packed job record written by the scripts (layout in {@code lua/includes/record.lua}).
 *
 * @param state       job state
 * @param attempt     attempts started so far
 * @param maxAttempts the job's own max attempts, 0 = the worker's policy decides
 * @param seq         enqueue sequence (names the due-set member while scheduled)
 * @param due         due ms when stored (not while scheduled), else -1
 * @param token       fencing token, 0 when absent
 * @param error       last error summary, or {@code null}
 * @param raw         the whole record
 * @param body        offset of the payload in {@code raw}
 */
public record Record(JobState state, int attempt, int maxAttempts, long seq, long due, long token, String error,
                     byte[] raw, int body) {
    private static final int F_DUE = 8;
    private static final int F_TOKEN = 16;
    private static final int F_ERROR = 32;

    /** Decodes a record. */
    public static Record decode(byte[] raw) {
        int flags = raw[0] & 0xff;
        int[] pos = {1};
        int attempt = (int) varint(raw, pos);
        int max = (int) varint(raw, pos);
        long seq = varint(raw, pos);
        long due = (flags & F_DUE) != 0 ? varint(raw, pos) : -1;
        long token = (flags & F_TOKEN) != 0 ? varint(raw, pos) : 0;
        String error = null;
        if ((flags & F_ERROR) != 0) {
            int len = (int) varint(raw, pos);
            error = new String(raw, pos[0], len, StandardCharsets.UTF_8);
            pos[0] += len;
        }
        return new Record(JobState.ofCode(flags & 7), attempt, max, seq, due, token, error, raw, pos[0]);
    }

    /** A copy of the payload bytes. */
    public byte[] payload() {
        return Arrays.copyOfRange(raw, body, raw.length);
    }

    private static long varint(byte[] b, int[] pos) {
        long n = 0;
        int shift = 0;
        while (true) {
            int v = b[pos[0]++] & 0xff;
            n |= (long) (v & 0x7f) << shift;
            if (v < 0x80) {
                return n;
            }
            shift += 7;
        }
    }
}
