package dev.delayq.cli;

import dev.delayq.ChangeResult;
import dev.delayq.JobQueue;
import dev.delayq.internal.present.JobActions;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code delayq reschedule QUEUE (ID | --dedupe-key KEY) (--delay DUR | --at INSTANT)}: moves a scheduled job to a new
 * due time.
 */
@Command(name = "reschedule", mixinStandardHelpOptions = true,
        description = {"Move a scheduled job to a new due time and print 'rescheduled ID <due time>'.",
                "With --dedupe-key instead of an id, move the job that holds that dedupe key (its id is printed).",
                "Exit status 1 when there is no such job or it is not scheduled."},
        footer = {"", "Examples:", "  delayq reschedule orders order-731:timeout --delay 2h",
                "  delayq reschedule orders --dedupe-key reminder:user-42 --delay 10m",
                "  delayq reschedule orders order-731:timeout --at 2026-12-01T09:00:00Z"})
public final class RescheduleCommand implements Callable<Integer> {
    @ParentCommand
    Main main;

    @Parameters(index = "0", paramLabel = "QUEUE", description = "Queue name.")
    String queue;

    @Parameters(index = "1", arity = "0..1", paramLabel = "ID", description = "Job id (or give --dedupe-key).")
    String id;

    @Option(names = "--dedupe-key", paramLabel = "KEY", description = "Move the job that holds this dedupe key.")
    String dedupeKey;

    @ArgGroup(exclusive = true, multiplicity = "1")
    When when;

    /** The new due time: exactly one of a delay from now or an instant. */
    static final class When {
        @Option(names = "--delay", paramLabel = "DUR", converter = Durations.DurationConverter.class,
                description = "Due this long from now, on the Redis server's clock.")
        Duration delay;

        @Option(names = "--at", paramLabel = "INSTANT", converter = Durations.InstantConverter.class,
                description = "Due at this instant (ISO-8601 with a zone).")
        Instant at;
    }

    @Override
    public Integer call() {
        Jobs.idOrKey(id, dedupeKey, "reschedule");
        JobQueue q = main.queue(queue);
        ChangeResult c;
        CliException refused;
        if (dedupeKey != null) {
            c = when.delay != null ? q.rescheduleByDedupeKey(dedupeKey, when.delay) : q.rescheduleByDedupeKey(dedupeKey, when.at);
            refused = Jobs.refusedByKey(c, queue, dedupeKey, JobActions.RESCHEDULE);
        } else {
            c = when.delay != null ? q.reschedule(id, when.delay) : q.reschedule(id, when.at);
            refused = Jobs.refused(c, queue, id, JobActions.RESCHEDULE);
        }
        if (refused != null) {
            throw refused;
        }
        String moved = dedupeKey != null ? c.id() : id;
        if (main.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("result", "rescheduled");
            m.put("id", moved);
            m.put("dueAt", c.at() != null ? c.at().toString() : null);
            main.out().println(Json.line(m));
        } else {
            main.out().println("rescheduled " + moved + " " + c.at());
        }
        return Exit.OK;
    }
}
