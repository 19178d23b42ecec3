package dev.delayq.cli;

import dev.delayq.ChangeResult;
import dev.delayq.internal.present.JobActions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code delayq cancel QUEUE (ID | --dedupe-key KEY)}: deletes a scheduled job before it runs. */
@Command(name = "cancel", mixinStandardHelpOptions = true,
        description = {"Delete a scheduled job before it runs and print 'cancelled ID'.",
                "With --dedupe-key instead of an id, cancel the job that holds that dedupe key (its id is printed). "
                        + "The job's dedupe key is released at once.",
                "Exit status 1 when there is no such job or it is not scheduled (running or finished)."},
        footer = {"", "Examples:", "  delayq cancel orders order-731:timeout",
                "  delayq cancel orders --dedupe-key reminder:user-42",
                "  delayq cancel orders order-731:timeout --redis redis://:secret@queue-host:6379"})
public final class CancelCommand implements Callable<Integer> {
    @ParentCommand
    Main main;

    @Parameters(index = "0", paramLabel = "QUEUE", description = "Queue name.")
    String queue;

    @Parameters(index = "1", arity = "0..1", paramLabel = "ID", description = "Job id (or give --dedupe-key).")
    String id;

    @Option(names = "--dedupe-key", paramLabel = "KEY", description = "Cancel the job that holds this dedupe key.")
    String dedupeKey;

    @Override
    public Integer call() {
        if ((id == null) == (dedupeKey == null)) {
            throw new IllegalArgumentException(id == null ? "give the id of the job to cancel, or --dedupe-key KEY"
                    : "give either a job id or --dedupe-key, not both");
        }
        String cancelled;
        if (dedupeKey != null) {
            ChangeResult c = main.queue(queue).cancelByDedupeKey(dedupeKey);
            switch (c.status()) {
                case NOT_FOUND -> throw new CliException(Exit.FAILED, "no job holds dedupe key '" + dedupeKey
                        + "' in queue '" + queue + "'");
                case WRONG_STATE -> throw new CliException(Exit.FAILED,
                        JobActions.CANCEL.refusalOf("the job holding dedupe key '" + dedupeKey + "'", c.state()));
                case CHANGED -> cancelled = c.id();
                default -> throw new IllegalStateException(c.status().name());
            }
        } else {
            ChangeResult c = main.queue(queue).cancel(id);
            CliException refused = Jobs.refused(c, queue, id, JobActions.CANCEL);
            if (refused != null) {
                throw refused;
            }
            cancelled = id;
        }
        if (main.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("result", "cancelled");
            m.put("id", cancelled);
            main.out().println(Json.line(m));
        } else {
            main.out().println("cancelled " + cancelled);
        }
        return Exit.OK;
    }
}
