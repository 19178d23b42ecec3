package dev.delayq.cli.bench;

import java.io.PrintWriter;

/**
 * The one-line progress display on stderr ({@code \r[w1 2/3] draining 12345/20000}), rewritten in place and
 * erased at the end so that it never mixes with the report on stdout.
 */
final class Progress {
    private static final long MIN_INTERVAL_NANOS = 100_000_000L;

    private final PrintWriter err;
    private final boolean enabled;
    private String phase = "";
    private int width;
    private long lastNanos;

    Progress(PrintWriter err, boolean enabled) {
        this.err = err;
        this.enabled = enabled;
    }

    /** Starts repetition {@code rep} of {@code reps} of {@code workload}. */
    synchronized void phase(String workload, int rep, int reps) {
        phase = "[" + workload + " " + rep + "/" + reps + "] ";
    }

    /** Shows {@code text} after the phase; updates closer together than 100 ms are dropped unless forced. */
    synchronized void show(String text, boolean force) {
        long now = System.nanoTime();
        if (!enabled || (!force && now - lastNanos < MIN_INTERVAL_NANOS)) {
            return;
        }
        lastNanos = now;
        String line = phase + text;
        StringBuilder b = new StringBuilder("\r").append(line);
        for (int i = line.length(); i < width; i++) {
            b.append(' '); // erase what a longer previous line left
        }
        width = line.length();
        err.print(b);
        err.flush();
    }

    /** Shows {@code text} now. */
    void show(String text) {
        show(text, true);
    }

    /** Erases the line. */
    synchronized void clear() {
        if (enabled && width > 0) {
            err.print("\r" + " ".repeat(width) + "\r");
            err.flush();
            width = 0;
        }
    }
}
