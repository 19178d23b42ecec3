package dev.delayq.cli;

import dev.delayq.JobQueue;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code delayq pause QUEUE}: stop handing out a queue's jobs (kept in Redis, seen by every worker). */
@Command(name = "pause", mixinStandardHelpOptions = true,
        description = {"Pause a queue: claims hand out nothing, idle workers sleep (costing Redis nothing) until resumed, "
                + "running jobs finish.",
                "Enqueues, schedules (their ticks are enqueued) and every other command go on. Prints 'paused QUEUE', or "
                        + "'already paused QUEUE'; exit 0 either way.",
                "A queue that is not known (no job was ever enqueued to it) is refused with exit 2 and left as it is: a "
                        + "queue created later under that name would start paused. --create creates it and pauses it."},
        footer = {"", "Examples:", "  delayq pause mail", "  delayq resume mail", "  delayq pause imports --create"})
public final class PauseCommand implements Callable<Integer> {
    @ParentCommand
    Main main;

    @Parameters(index = "0", paramLabel = "QUEUE", description = "Queue name.")
    String queue;

    @Option(names = "--create", description = CREATE)
    boolean create;

    /** The --create option of pause and resume. */
    static final String CREATE = "Create the queue if it is not known (without it an unknown queue is refused and "
            + "nothing is written).";

    @Override
    public Integer call() {
        return run(main, queue, true, create);
    }

    /** Pauses or resumes {@code queue} and prints what changed. */
    static int run(Main main, String queue, boolean pause, boolean create) {
        String word = pause ? "paused" : "resumed";
        JobQueue q = main.knownQueue(queue, create, "Nothing was changed: --create creates the queue"
                + (pause ? " and pauses it" : ""));
        boolean changed = pause ? q.inspector().pause() : q.inspector().resume();
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
                    "Prints 'resumed QUEUE', or 'already resumed QUEUE'; exit 0 either way. A queue that is not known is "
                            + "refused with exit 2 (--create creates it)."},
            footer = {"", "Examples:", "  delayq resume mail"})
    public static final class Resume implements Callable<Integer> {
        @ParentCommand
        Main main;

        @Parameters(index = "0", paramLabel = "QUEUE", description = "Queue name.")
        String queue;

        @Option(names = "--create", description = CREATE)
        boolean create;

        @Override
        public Integer call() {
            return run(main, queue, false, create);
        }
    }
}
