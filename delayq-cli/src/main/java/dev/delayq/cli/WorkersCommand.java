package dev.delayq.cli;

import dev.delayq.QueueInspector;
import dev.delayq.QueueStats;
import dev.delayq.WorkerInfo;
import dev.delayq.internal.present.DurationText;
import dev.delayq.internal.present.JobFields;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code delayq workers [QUEUE]}: the live workers of a queue, or of every queue, by their heartbeats. */
@Command(name = "workers", mixinStandardHelpOptions = true,
        description = {"List the live workers of a queue (of every queue under the prefix when none is given), as their "
                + "heartbeats recorded them: name, host, pid, concurrency, the jobs they run and since when, when they "
                + "started and last beat, and their delayq version. A worker beats every 10 s by default; one that closes "
                + "drops out at once, one that stops without closing (killed, frozen, cut off) three beat intervals "
                + "after its last beat.",
                "A queue with jobs due now and no live worker is flagged 'no workers'. --json: one object per worker "
                        + "and line, keys queue, id, name, host, pid, queues, concurrency, running (id and startedAt "
                        + "each), startedAt, lastBeat, version."},
        footer = {"", "Examples:", "  delayq workers", "  delayq workers orders --json | jq -r .host"})
public final class WorkersCommand implements Callable<Integer> {
    private static final String ROW = "%-24s %-30s %-20s %8s %11s %7s %-10s %-10s %s%n";

    @ParentCommand
    Main main;

    @Parameters(index = "0", arity = "0..1", paramLabel = "QUEUE", description = "Queue name (default: every queue).")
    String queue;

    @Override
    public Integer call() {
        List<String> names = queue != null ? List.of(queue) : main.client().queues();
        if (queue != null) {
            main.knownQueue(queue, false, "A queue that does not exist has no workers to show");
        }
        if (!main.json()) {
            main.out().printf(ROW, "QUEUE", "NAME", "HOST", "PID", "CONCURRENCY", "RUNNING", "UP", "LAST BEAT", "VERSION");
        }
        for (String n : names) {
            QueueInspector inspector = main.client().inspector(n);
            List<WorkerInfo> workers = inspector.workers();
            if (main.json()) {
                for (WorkerInfo w : workers) {
                    Map<String, Object> m = new java.util.LinkedHashMap<>();
                    m.put("queue", n);
                    m.putAll(JobFields.worker(w));
                    main.out().println(Json.line(m));
                }
                continue;
            }
            QueueStats s = inspector.stats();
            Instant now = Instant.ofEpochMilli(s.serverTimeMillis());
            if (workers.isEmpty()) {
                main.out().printf("%-24s %s%n", Text.field(n), JobFields.unattended(s, 0)
                        ? "! no workers: jobs are due and no live worker runs them" : "- (no live workers)");
            }
            for (WorkerInfo w : workers) {
                main.out().printf(ROW, Text.field(n), Text.field(w.name()), Text.field(w.host()), w.pid(), w.concurrency(),
                        w.running().size(), ago(w.startedAt(), now), ago(w.lastBeat(), now) + " ago", w.version());
                for (WorkerInfo.RunningJob r : w.running()) {
                    main.out().printf("  running %s for %s (since %s)%n", Text.field(r.id()), ago(r.startedAt(), now),
                            r.startedAt());
                }
            }
        }
        main.out().flush();
        return Exit.OK;
    }

    /** How long before {@code now} (Redis's clock) {@code t} was, as a duration; 0 when not before. */
    private static String ago(Instant t, Instant now) {
        Duration d = Duration.between(t, now);
        return DurationText.format(d.isNegative() ? Duration.ZERO : Duration.ofSeconds(d.toSeconds()));
    }
}
