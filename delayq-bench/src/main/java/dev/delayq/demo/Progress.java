package dev.delayq.demo;

import dev.delayq.QueueStats;
import java.io.PrintWriter;

/**
 * The demo's live progress bar on stderr: redrawn in place on a terminal; into a file or a pipe a plain line
 * every {@link #PLAIN_INTERVAL_NANOS} at most, and the last state at the end (never a {@code \r}).
 */
final class Progress {
    private static final int WIDTH = 30;
    /** Between two plain progress lines. */
    static final long PLAIN_INTERVAL_NANOS = 2_000_000_000L;

    private final PrintWriter err;
    private final int jobs;
    private final boolean terminal;
    private long lastLine;
    private boolean shown;
    private String pending;

    Progress(PrintWriter err, int jobs, boolean terminal) {
        this.err = err;
        this.jobs = jobs;
        this.terminal = terminal;
    }

    void show(QueueStats s, boolean killed) {
        long finished = s.done() + s.dead();
        int filled = (int) (WIDTH * finished / Math.max(1, jobs));
        String bar = "[" + "#".repeat(filled) + "-".repeat(WIDTH - filled) + "]";
        String line = String.format("%s %3d%%  scheduled %,d  running %,d  done %,d  retried %,d  dead %,d%s", bar,
                100 * finished / Math.max(1, jobs), s.scheduled(), s.processing(), s.done(), s.total("retried"), s.dead(),
                killed ? "  (1 worker killed)" : "");
        if (terminal) {
            err.print("\r" + line + "\u001b[K");
            err.flush();
        } else if (!shown || System.nanoTime() - lastLine >= PLAIN_INTERVAL_NANOS) {
            err.println(line);
            err.flush();
            shown = true;
            pending = null;
            lastLine = System.nanoTime();
        } else {
            pending = line; // printed by finish() if nothing newer was
        }
    }

    void finish() {
        if (terminal) {
            err.println();
        } else if (pending != null) {
            err.println(pending);
        }
        err.flush();
    }
}
