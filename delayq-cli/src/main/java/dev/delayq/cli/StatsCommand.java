package dev.delayq.cli;

import dev.delayq.QueueStats;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code delayq stats QUEUE}: counts per state and totals. */
@Command(name = "stats", mixinStandardHelpOptions = true, description = "Show a queue's jobs per state and its running totals.",
        footer = {"", "Examples:", "  delayq stats orders", "  delayq stats orders --json | jq .scheduled"})
public final class StatsCommand implements Callable<Integer> {
    @ParentCommand
    Main main;

    @Parameters(index = "0", paramLabel = "QUEUE", description = "Queue name.")
    String queue;

    @Override
    public Integer call() {
        QueueStats s = main.queue(queue).stats();
        if (main.json()) {
            main.out().println(Json.line(Json.stats(s)));
        } else {
            main.out().printf("queue       %s%n", s.queue());
            main.out().printf("scheduled   %d%nprocessing  %d%ndone        %d%ndead        %d%n",
                    s.scheduled(), s.processing(), s.done(), s.dead());
            main.out().println("totals");
            for (String t : QueueStats.TOTALS) {
                main.out().printf("  %-10s%d%n", t, s.total(t));
            }
        }
        return Exit.OK;
    }
}
