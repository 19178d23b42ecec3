package dev.delayq.cli;

import dev.delayq.JobQueue;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code delayq pause QUEUE}: stop handing out a queue's jobs (kept in Redis, seen by every worker). */
@Command(name = "pause", mixinStandardHelpOptions = true,
        description = {"Pause a queue: claims hand out nothing, idle workers sleep (costing Redis nothing) until resumed, "
                + "running jobs finish.",
                "Enqueues, schedules (their ticks are enqueued) and every other command go on. Prints 'paused QUEUE', or "
                        + "'already paused QUEUE'; exit 0 either way."},
        footer = {"", "Examples:", "  delayq pause mail", "  delayq resume mail"})
public final class PauseCommand implements Callable<Integer> {
    @ParentCommand
    Main main;

    @Parameters(index = "0", paramLabel = "QUEUE", description = "Queue name.")
    String queue;

    @Override
    public Integer call() {
        return run(main, queue, true);
    }

    /** Pauses or resumes {@code queue} and prints what changed. */
    static int run(Main main, String queue, boolean pause) {
        JobQueue q = main.queue(queue);
        boolean changed = pause ? q.pause() : q.resume();
        String word = pause ? "paused" : "resumed";
        if (main.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("queue", queue);
            m.put("paused", pause);
            m.put("changed", changed);
            main.out().println(Json.line(m));
        } else {
            main.out().println((changed ? "" : "already ") + word + " " + queue);
        }
        return Exit.OK;
    }

    /** {@code delayq resume QUEUE}. */
    @Command(name = "resume", mixinStandardHelpOptions = true,
            description = {"Resume a paused queue: claims hand out jobs again and idle workers wake at once.",
                    "Prints 'resumed QUEUE', or 'already resumed QUEUE'; exit 0 either way."},
            footer = {"", "Examples:", "  delayq resume mail"})
    public static final class Resume implements Callable<Integer> {
        @ParentCommand
        Main main;

        @Parameters(index = "0", paramLabel = "QUEUE", description = "Queue name.")
        String queue;

        @Override
        public Integer call() {
            return run(main, queue, false);
        }
    }
}
