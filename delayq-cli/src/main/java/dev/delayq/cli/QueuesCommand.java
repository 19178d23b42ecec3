package dev.delayq.cli;

import dev.delayq.QueueStats;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/** {@code delayq queues}: every queue under the prefix with its counts. */
@Command(name = "queues", mixinStandardHelpOptions = true,
        description = "List the queues that have had jobs under the prefix, with their jobs per state.",
        footer = {"", "Examples:", "  delayq queues", "  delayq queues --prefix myapp --json"})
public final class QueuesCommand implements Callable<Integer> {
    @ParentCommand
    Main main;

    @Override
    public Integer call() {
        List<String> names = main.client().queues();
        List<QueueStats> all = new ArrayList<>();
        for (String n : names) {
            all.add(main.client().queue(n).stats()); // listed from the registry: known by definition
        }
        if (main.json()) {
            for (QueueStats s : all) {
                Map<String, Object> m = Json.stats(s);
                main.out().println(Json.line(m));
            }
        } else {
            main.out().printf("%-30s %10s %10s %10s %10s%n", "QUEUE", "SCHEDULED", "PROCESSING", "DONE", "DEAD");
            for (QueueStats s : all) {
                main.out().printf("%-30s %10d %10d %10d %10d%n", s.queue(), s.scheduled(), s.processing(), s.done(), s.dead());
            }
        }
        return Exit.OK;
    }
}
