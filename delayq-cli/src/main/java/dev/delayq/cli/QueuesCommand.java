package dev.delayq.cli;

import dev.delayq.DelayQConfigurationException;
import dev.delayq.DelayQConnectionException;
import dev.delayq.DelayQException;
import dev.delayq.DelayQTimeoutException;
import dev.delayq.Limits;
import dev.delayq.QueueStats;
import dev.delayq.internal.present.DurationText;
import dev.delayq.internal.present.JobFields;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/** {@code delayq queues}: every queue under the prefix with its counts. */
@Command(name = "queues", mixinStandardHelpOptions = true,
        description = {"List the queues that have had jobs under the prefix (or were created with --create), with their "
                + "jobs per state, whether they are paused, their flow limits ('-': none) and their live workers (by their "
                + "heartbeats; '0 no workers' when jobs are due and no live worker runs them).",
                "A registry entry that cannot be shown (a name that is not a valid queue name, a queue whose counts "
                        + "cannot be read) is flagged in its row with the reason ('--json': 'error'), the others are "
                        + "still listed, and the exit status is 1."},
        footer = {"", "Examples:", "  delayq queues", "  delayq queues --prefix myapp --json"})
public final class QueuesCommand implements Callable<Integer> {
    /** One row of the table, the header included. */
    private static final String ROW = "%-30s %10s %10s %10s %10s %6s %-12s %11s %s%n";

    @ParentCommand
    Main main;

    @Override
    public Integer call() {
        List<String> names = main.client().queues();
        if (!main.json()) {
            main.out().printf(ROW, "QUEUE", "SCHEDULED", "PROCESSING", "DONE", "DEAD", "PAUSED", "RATE", "CONCURRENCY", "WORKERS");
        }
        int bad = 0;
        for (String n : names) {
            QueueStats s;
            int workers;
            try {
                dev.delayq.QueueInspector inspector = main.client().inspector(n); // from the registry: known by definition
                s = inspector.stats();
                workers = inspector.workers().size();
            } catch (DelayQConnectionException | DelayQTimeoutException | DelayQConfigurationException e) {
                throw e; // Redis itself fails: no other queue would fare better (exit 3)
            } catch (IllegalArgumentException | DelayQException e) {
                bad++;
                flag(n, DurationText.humanizeIso(e.getMessage()));
                continue;
            }
            if (main.json()) {
                main.out().println(Json.line(JobFields.stats(s, workers)));
            } else {
                Limits l = s.limits();
                main.out().printf(ROW, s.queue(), s.scheduled(), s.processing(), s.done(), s.dead(), s.paused() ? "yes" : "no",
                        l.rateJobs() > 0 ? l.rateJobs() + "/" + DurationText.format(l.ratePer()) : "-",
                        l.concurrency() > 0 ? l.concurrency() : "-",
                        workers + (JobFields.unattended(s, workers) ? " no workers" : ""));
            }
        }
        main.out().flush();
        if (bad > 0) {
            main.err().println("delayq: " + bad + " of " + names.size() + " queue(s) under prefix '" + main.prefix()
                    + "' could not be shown (flagged above)");
            return Exit.FAILED;
        }
        return Exit.OK;
    }

    /** A row for a registry entry that cannot be shown: {@code NAME  ! <reason>}, or {@code {queue, error}}. */
    private void flag(String name, String reason) {
        String oneLine = Text.oneLine(reason, 300);
        if (main.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("queue", name);
            m.put("name", name); // as in a listed queue's counts (JobFields.stats)
            m.put("error", oneLine);
            main.out().println(Json.line(m));
        } else {
            main.out().printf("%-30s ! %s%n", Text.field(Text.cut(name, 200)), oneLine);
        }
    }
}
