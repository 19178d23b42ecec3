package dev.delayq.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Reads lines of bytes, each held in memory only up to a bound: a longer line is read to its end and thrown
 * away, and reported by its length, so that one huge line costs the bound and never more.
 */
final class BoundedLines {
    /** One line: its bytes (without the line break), or {@code null} when it was longer than the bound. */
    record Line(byte[] bytes, long length) {
        boolean tooLong() {
            return bytes == null;
        }
    }

    private final InputStream in;
    private final int max;
    private final byte[] buf = new byte[1 << 16];
    private int pos;
    private int end;
    private boolean eof;

    /**
     * @param in  the input
     * @param max the longest line kept, in bytes
     */
    BoundedLines(InputStream in, int max) {
        this.in = in;
        this.max = max;
    }

    /** The next line, or {@code null} at the end of the input. A final line without a line break counts. */
    Line next() throws IOException {
        byte[] line = new byte[Math.min(max, 256)];
        int size = 0;
        long length = 0;
        boolean any = false;
        while (true) {
            if (pos == end && !fill()) {
                return any ? finish(line, size, length) : null;
            }
            any = true;
            int nl = -1;
            for (int i = pos; i < end; i++) {
                if (buf[i] == '\n') {
                    nl = i;
                    break;
                }
            }
            int stop = nl >= 0 ? nl : end;
            int n = stop - pos;
            if (line != null) {
                if (length + n <= max) {
                    if (size + n > line.length) {
                        line = Arrays.copyOf(line, (int) Math.min(max, Math.max(2L * line.length, size + n)));
                    }
                    System.arraycopy(buf, pos, line, size, n);
                    size += n;
                } else {
                    line = null; // too long: count the rest, keep nothing
                }
            }
            length += n;
            pos = nl >= 0 ? nl + 1 : end;
            if (nl >= 0) {
                return finish(line, size, length);
            }
        }
    }

    private static Line finish(byte[] line, int size, long length) {
        if (line == null) {
            return new Line(null, length);
        }
        int n = size > 0 && line[size - 1] == '\r' ? size - 1 : size;
        return new Line(Arrays.copyOf(line, n), n);
    }

    /** Whether a line, or part of one, can be read without waiting. */
    boolean ready() throws IOException {
        return pos < end || (!eof && in.available() > 0);
    }

    private boolean fill() throws IOException {
        if (eof) {
            return false;
        }
        int n = in.read(buf);
        if (n < 0) {
            eof = true;
            return false;
        }
        pos = 0;
        end = n;
        return true;
    }
}
