package dev.delayq.cli.demo;

import dev.delayq.QueueStats;
import java.io.PrintWriter;

/** The demo's live progress bar on stderr: redrawn in place on a terminal, a line a second otherwise. */
final class Progress {
    private static final int WIDTH = 30;
    private final PrintWriter err;
    private final int jobs;
    private final boolean terminal = System.console() != null;
    private long lastLine;

    Progress(PrintWriter err, int jobs) {
        this.err = err;
        this.jobs = jobs;
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
        } else if (System.nanoTime() - lastLine > 1_000_000_000L) {
            err.println(line);
            lastLine = System.nanoTime();
        }
    }

    void finish() {
        if (terminal) {
            err.println();
        }
        err.flush();
    }
}
