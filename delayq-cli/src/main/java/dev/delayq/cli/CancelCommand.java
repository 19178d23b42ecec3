package dev.delayq.cli;

import dev.delayq.ChangeResult;
import dev.delayq.JobState;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code delayq cancel QUEUE ID}: deletes a scheduled job before it runs. */
@Command(name = "cancel", mixinStandardHelpOptions = true,
        description = {"Delete a scheduled job before it runs and print 'cancelled ID'.",
                "Exit status 1 when there is no such job or it is not scheduled (running or finished)."},
        footer = {"", "Examples:", "  delayq cancel orders order-731:timeout",
                "  delayq cancel orders order-731:timeout --redis redis://:secret@queue-host:6379"})
public final class CancelCommand implements Callable<Integer> {
    @ParentCommand
    Main main;

    @Parameters(index = "0", paramLabel = "QUEUE", description = "Queue name.")
    String queue;

    @Parameters(index = "1", paramLabel = "ID", description = "Job id.")
    String id;

    @Override
    public Integer call() {
        ChangeResult c = main.queue(queue).cancel(id);
        CliException refused = Jobs.refused(c, queue, id, JobState.SCHEDULED, "cancelled");
        if (refused != null) {
            throw refused;
        }
        if (main.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("result", "cancelled");
            m.put("id", id);
            main.out().println(Json.line(m));
        } else {
            main.out().println("cancelled " + id);
        }
        return Exit.OK;
    }
}
