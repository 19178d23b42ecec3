package dev.delayq.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Copies one output stream of a job's command to the worker's, in bounded memory: whole lines as they come
 * (each written at once, so that lines of jobs running side by side do not interleave), a line longer than
 * {@link #MAX_LINE} bytes in pieces of that size, each on a line of its own. Each line can carry a prefix
 * (the job's id, for stderr). The last bytes are kept in a {@link Tail} for the job's error. Nothing that goes
 * wrong while copying reaches the job: the stream is then read to its end and dropped, so that the command
 * never blocks on a full pipe.
 */
final class OutputPump implements Runnable {
    /** The longest line written whole; longer lines are split. */
    static final int MAX_LINE = 64 * 1024;

    private final InputStream in;
    private final PrintWriter to;
    private final String prefix;
    private final Tail tail;
    private final byte[] line = new byte[MAX_LINE];
    private int size;

    /**
     * @param in     the command's stdout or stderr
     * @param to     where its lines go
     * @param prefix put before each line ({@code ""} for none)
     * @param tail   keeps the last bytes, or {@code null}
     */
    OutputPump(InputStream in, PrintWriter to, String prefix, Tail tail) {
        this.in = in;
        this.to = to;
        this.prefix = prefix;
        this.tail = tail;
    }

    @Override
    public void run() {
        byte[] buf = new byte[8192];
        boolean copying = true;
        try (in) {
            int n;
            while ((n = in.read(buf)) > 0) {
                if (tail != null) {
                    tail.add(buf, n);
                }
                if (copying) {
                    try {
                        copy(buf, n);
                    } catch (RuntimeException | Error e) {
                        copying = false; // e.g. out of memory: drop the rest, the job goes on
                    }
                }
            }
            if (copying && size > 0) {
                StringBuilder out = new StringBuilder();
                emit(out, size);
                write(out);
            }
        } catch (IOException e) {
            // The pipe was closed under us (the command's processes were ended): keep what was read.
        } catch (RuntimeException | Error e) {
            drainQuietly();
        }
    }

    private void copy(byte[] buf, int n) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < n; i++) {
            byte b = buf[i];
            if (b == '\n') {
                emit(out, size);
                continue;
            }
            if (size == MAX_LINE) {
                // A line too long to hold: write what is held, cut at a character boundary, and carry the rest.
                emit(out, charBoundary());
            }
            line[size++] = b;
        }
        write(out);
    }

    /** Where the bytes held can be cut without splitting a UTF-8 sequence: before an incomplete last one. */
    private int charBoundary() {
        int j = size - 1;
        while (j > size - 4 && j > 0 && (line[j] & 0xC0) == 0x80) {
            j--;
        }
        int lead = line[j] & 0xFF;
        int len = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0;
        return len == 0 || j + len <= size || j == 0 ? size : j; // invalid UTF-8 or complete: cut at the end
    }

    /** Appends the first {@code n} bytes held as a line (without a trailing CR) and keeps the rest. */
    private void emit(StringBuilder out, int n) {
        int end = n > 0 && line[n - 1] == '\r' ? n - 1 : n;
        out.append(prefix).append(new String(line, 0, end, StandardCharsets.UTF_8)).append('\n');
        System.arraycopy(line, n, line, 0, size - n);
        size -= n;
    }

    private void write(StringBuilder out) {
        if (out.length() > 0) {
            to.print(out); // one call: PrintWriter writes it under its lock, whole
            to.flush();
        }
    }

    private void drainQuietly() {
        byte[] buf = new byte[8192];
        try {
            while (in.read(buf) > 0) {
                // dropped
            }
        } catch (IOException | RuntimeException e) {
            // closed: nothing more to drain
        }
    }

    /** The last {@code limit} bytes written to it. */
    static final class Tail {
        private final int limit;
        private final byte[] bytes;
        private int size;

        Tail(int limit) {
            this.limit = limit;
            this.bytes = new byte[limit * 2];
        }

        synchronized void add(byte[] b, int len) {
            if (len >= limit) {
                System.arraycopy(b, len - limit, bytes, 0, limit);
                size = limit;
                return;
            }
            if (size + len > bytes.length) { // keep the last limit - len bytes, then append
                int keep = limit - len;
                System.arraycopy(bytes, size - keep, bytes, 0, keep);
                size = keep;
            }
            System.arraycopy(b, 0, bytes, size, len);
            size += len;
        }

        /** The tail as text: at most {@code limit} bytes, never starting inside a UTF-8 sequence, trailing blanks cut. */
        synchronized String text() {
            int from = Math.max(0, size - limit);
            while (from < size && (bytes[from] & 0xC0) == 0x80) {
                from++;
            }
            try {
                return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                        .onUnmappableCharacter(CodingErrorAction.REPLACE)
                        .decode(ByteBuffer.wrap(bytes, from, size - from)).toString().stripTrailing();
            } catch (CharacterCodingException e) {
                throw new IllegalStateException(e); // cannot happen with REPLACE
            }
        }
    }
}
