package dev.delayq.bench;

import java.io.PrintWriter;

/**
 * The progress display on stderr. On a terminal, one line ({@code \r[w1 2/3] draining 12345/20000}) rewritten
 * in place and erased at the end, so that it never mixes with the report on stdout. Into a file or a pipe, a
 * plain line at most every {@link #PLAIN_INTERVAL_NANOS} (never a {@code \r}).
 */
final class Progress {
    private static final long MIN_INTERVAL_NANOS = 100_000_000L;
    /** Between two plain progress lines. */
    static final long PLAIN_INTERVAL_NANOS = 10_000_000_000L;

    private final PrintWriter err;
    private final boolean enabled;
    private final boolean terminal;
    private String phase = "";
    private int width;
    private long lastNanos;
    private boolean shown;

    /**
     * @param enabled  whether to show progress at all
     * @param terminal whether stderr is a terminal (redrawn in place) or not (plain lines, rarely)
     */
    Progress(PrintWriter err, boolean enabled, boolean terminal) {
        this.err = err;
        this.enabled = enabled;
        this.terminal = terminal;
    }

    /** Starts repetition {@code rep} of {@code reps} of {@code workload}. */
    synchronized void phase(String workload, int rep, int reps) {
        phase = "[" + workload + " " + rep + "/" + reps + "] ";
    }

    /** Shows {@code text} after the phase; updates closer together than 100 ms are dropped unless forced. */
    synchronized void show(String text, boolean force) {
        if (!enabled) {
            return;
        }
        long now = System.nanoTime();
        String line = phase + text;
        if (!terminal) {
            if (!shown || now - lastNanos >= PLAIN_INTERVAL_NANOS) {
                shown = true;
                lastNanos = now;
                err.println("delayq bench: " + line);
                err.flush();
            }
            return;
        }
        if (!force && now - lastNanos < MIN_INTERVAL_NANOS) {
            return;
        }
        lastNanos = now;
        StringBuilder b = new StringBuilder("\r").append(line);
        for (int i = line.length(); i < width; i++) {
            b.append(' '); // erase what a longer previous line left
        }
        width = line.length();
        err.print(b);
        err.flush();
    }

    /** Shows {@code text} now (on a terminal; otherwise when a plain line is due). */
    void show(String text) {
        show(text, true);
    }

    /** Erases the line (on a terminal). */
    synchronized void clear() {
        if (enabled && terminal && width > 0) {
            err.print("\r" + " ".repeat(width) + "\r");
            err.flush();
            width = 0;
        }
    }
}
