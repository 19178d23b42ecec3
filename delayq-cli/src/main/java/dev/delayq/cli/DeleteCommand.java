package dev.delayq.cli;

import dev.delayq.ChangeResult;
import dev.delayq.internal.present.JobActions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code delayq delete QUEUE ID}: deletes a job in any state but running. */
@Command(name = "delete", mixinStandardHelpOptions = true,
        description = {"Delete a job that is not running (scheduled, done or dead) and print 'deleted ID'.",
                "Its dedupe key is released and its id can be used again at once. A record that cannot be decoded "
                        + "is deleted too.",
                "Exit status 1 when there is no such job or it is running (processing): a worker holds it."},
        footer = {"", "Examples:", "  delayq delete orders order-731:timeout",
                "  delayq delete orders order-731 && delayq enqueue orders --id order-731 --delay 1h   # the id anew"})
public final class DeleteCommand implements Callable<Integer> {
    @ParentCommand
    Main main;

    @Parameters(index = "0", paramLabel = "QUEUE", description = "Queue name.")
    String queue;

    @Parameters(index = "1", paramLabel = "ID", description = "Job id.")
    String id;

    @Override
    public Integer call() {
        ChangeResult c = main.inspector(queue).delete(id);
        CliException refused = Jobs.refused(c, queue, id, JobActions.DELETE);
        if (refused != null) {
            throw refused;
        }
        if (main.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("result", "deleted");
            m.put("id", id);
            main.out().println(Json.line(m));
        } else {
            main.out().println("deleted " + id);
        }
        return Exit.OK;
    }
}
