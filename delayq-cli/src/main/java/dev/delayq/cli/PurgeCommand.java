package dev.delayq.cli;

import dev.delayq.PurgeResult;
import dev.delayq.JobQueue;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code delayq purge QUEUE [--older-than DUR]}: deletes finished jobs past their retention. */
@Command(name = "purge", mixinStandardHelpOptions = true,
        description = {"Delete done and dead jobs that finished long enough ago and print "
                + "'purged N done and M dead jobs'.",
                "Without --older-than, the default retention applies: done jobs after 1 h, dead jobs after 7 d."},
        footer = {"", "Examples:", "  delayq purge orders", "  delayq purge orders --older-than 10m --json"})
public final class PurgeCommand implements Callable<Integer> {
    @ParentCommand
    Main main;

    @Parameters(index = "0", paramLabel = "QUEUE", description = "Queue name.")
    String queue;

    @Option(names = "--older-than", paramLabel = "DUR", converter = Durations.DurationConverter.class,
            description = "Delete done and dead jobs that finished more than this long ago (0s: all of them).")
    Duration olderThan;

    @Override
    public Integer call() {
        JobQueue q = main.queue(queue);
        PurgeResult p = olderThan != null ? q.inspector().purge(olderThan) : q.inspector().purge();
        if (main.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("done", p.done());
            m.put("dead", p.dead());
            main.out().println(Json.line(m));
        } else {
            main.out().println("purged " + p.done() + " done and " + p.dead() + " dead jobs");
        }
        return Exit.OK;
    }
}
