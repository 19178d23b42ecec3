package dev.delayq.cli;

import dev.delayq.ChangeResult;
import dev.delayq.JobQueue;
import dev.delayq.internal.present.DurationText;
import dev.delayq.internal.present.JobActions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code delayq retry QUEUE (ID... | --all-dead)}: puts dead jobs back, due now, with fresh attempts. */
@Command(name = "retry", mixinStandardHelpOptions = true,
        description = {"Put dead jobs back in the queue, due now, with a fresh budget of attempts; print "
                + "'retried ID' per job (with --all-dead: 'retried N dead jobs').",
                "An id that is not found or not dead is reported on stderr, the others are still retried, "
                        + "and the exit status is 1."},
        footer = {"", "Examples:", "  delayq retry orders order-731:timeout order-732:timeout",
                "  delayq retry orders --all-dead"})
public final class RetryCommand implements Callable<Integer> {
    @ParentCommand
    Main main;

    @Parameters(index = "0", paramLabel = "QUEUE", description = "Queue name.")
    String queue;

    @Parameters(index = "1..*", paramLabel = "ID", description = "Ids of dead jobs.")
    List<String> ids;

    @Option(names = "--all-dead", description = "Retry every dead job of the queue.")
    boolean allDead;

    @Override
    public Integer call() {
        boolean haveIds = ids != null && !ids.isEmpty();
        if (haveIds == allDead) {
            throw new IllegalArgumentException(allDead ? "give either job ids or --all-dead, not both"
                    : "give the ids of the dead jobs to retry, or --all-dead");
        }
        JobQueue q = main.queue(queue);
        if (allDead) {
            long n = q.inspector().retryAllDead();
            if (main.json()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("result", "retried");
                m.put("count", n);
                main.out().println(Json.line(m));
            } else {
                main.out().println("retried " + n + " dead jobs");
            }
            return Exit.OK;
        }
        int code = Exit.OK;
        for (String id : ids) {
            ChangeResult c;
            try {
                c = q.inspector().retryDead(id);
            } catch (IllegalArgumentException e) { // an invalid id among valid ones: report it, go on
                main.err().println("delayq: " + DurationText.humanizeIso(e.getMessage()));
                code = Exit.FAILED;
                continue;
            }
            CliException refused = Jobs.refused(c, queue, id, JobActions.RETRY);
            if (refused != null) {
                main.err().println("delayq: " + refused.getMessage());
                code = Exit.FAILED;
                continue;
            }
            if (main.json()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("result", "retried");
                m.put("id", id);
                main.out().println(Json.line(m));
            } else {
                main.out().println("retried " + id);
            }
        }
        return code;
    }
}
