package dev.delayq.cli;

import dev.delayq.JobState;
import dev.delayq.JobQueue;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code delayq list QUEUE --state S}: the jobs in one state, in index order, page by page. */
@Command(name = "list", mixinStandardHelpOptions = true,
        description = {"List the jobs in one state, in index order: scheduled by due time, processing by lease "
                + "expiry, done and dead by finish time.",
                "Text: a table ID STATE ATTEMPT DUE ERROR; --json: one job object per line."},
        footer = {"", "Examples:", "  delayq list orders --state dead",
                "  delayq list orders --state scheduled --limit 500000 --json > scheduled.jsonl"})
public final class ListCommand implements Callable<Integer> {
    /** Jobs fetched per call: large enough for few round trips, small enough to print as they come. */
    static final int PAGE = 1000;

    @ParentCommand
    Main main;

    @Parameters(index = "0", paramLabel = "QUEUE", description = "Queue name.")
    String queue;

    @Option(names = "--state", required = true, paramLabel = "STATE",
            description = "scheduled, processing, done or dead.")
    String state;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "100",
            description = "Most jobs to list (default: ${DEFAULT-VALUE}); any number, fetched in pages of " + PAGE + ".")
    long limit;

    @Override
    public Integer call() {
        JobState s = JobState.parse(state); // before connecting: a typo never waits for Redis
        if (limit < 1) {
            throw new IllegalArgumentException("--limit is " + limit + ": it must be at least 1");
        }
        JobQueue q = main.queue(queue);
        if (!main.json()) {
            main.out().printf("%-30s  %-10s  %7s  %-24s  %s%n", "ID", "STATE", "ATTEMPT", "DUE", "ERROR");
        }
        // JobQueue.stream reads page by page (merging the partitions of a partitioned queue), so any --limit works
        // in little memory; lines are flushed every page.
        long[] printed = {0};
        q.stream(s).limit(limit).forEach(j -> {
            if (main.json()) {
                main.out().println(Json.line(Json.job(j)));
            } else {
                main.out().printf("%-30s  %-10s  %7d  %-24s  %s%n", j.id(), j.state().label(), j.attempt(),
                        j.dueAt() == null ? "-" : j.dueAt(), Text.oneLine(j.lastError(), 100));
            }
            if (++printed[0] % PAGE == 0) {
                main.out().flush();
            }
        });
        main.out().flush();
        return Exit.OK;
    }
}
