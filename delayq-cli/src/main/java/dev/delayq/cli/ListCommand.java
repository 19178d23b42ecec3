package dev.delayq.cli;

import dev.delayq.JobInfo;
import dev.delayq.JobState;
import dev.delayq.JobQueue;
import dev.delayq.ScheduledState;
import dev.delayq.internal.present.JobFields;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code delayq list QUEUE --state S}: the jobs in one state, in index order, page by page. */
@Command(name = "list", mixinStandardHelpOptions = true,
        description = {"List the jobs in one state, in index order: scheduled by due time, processing by lease "
                + "expiry, done and dead by finish time, waiting (for their parents) by enqueue time. The scheduled jobs "
                + "by where they wait, as 'delayq stats' counts them: ready (due now) and delayed (due later, not "
                + "retrying) by due time, retrying (failed, waiting for a retry still to come) by retry time.",
                "Text: a table ID STATE ATTEMPT DUE ERROR, with the column the list is sorted by before ERROR for the "
                        + "other states (processing: LEASE UNTIL; done, dead: FINISHED, when the job completed or died; "
                        + "waiting: ENQUEUED); "
                        + "a record that cannot be decoded is flagged in the ERROR column ('[corrupt record, N raw "
                        + "bytes]'). An id or error with blanks, quotes, backslashes or unprintable characters is printed "
                        + "in double quotes with backslash escapes (\\n, \\\", \\\\, \\" + "uXXXX), so that no value passes for "
                        + "several columns. --json: one job object per line (the keys of 'delayq job --json')."},
        footer = {"", "Examples:", "  delayq list orders --state dead",
                "  delayq list orders --state retrying",
                "  delayq list orders --state scheduled --limit 500000 --json > scheduled.jsonl"})
public final class ListCommand implements Callable<Integer> {
    /** Jobs fetched per call: large enough for few round trips, small enough to print as they come. */
    static final int PAGE = 1000;

    @ParentCommand
    Main main;

    @Parameters(index = "0", paramLabel = "QUEUE", description = "Queue name.")
    String queue;

    @Option(names = "--state", required = true, paramLabel = "STATE",
            description = "scheduled, processing, done, dead or waiting (for their parents: docs/flows.md); or of the "
                    + "scheduled jobs ready, delayed or retrying.")
    String state;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "100",
            description = "Most jobs to list (default: ${DEFAULT-VALUE}); any number, fetched in pages of " + PAGE + ".")
    long limit;

    @Override
    public Integer call() {
        // Parsed before connecting: a typo never waits for Redis.
        ScheduledState waiting = waiting(state);
        JobState s = waiting != null ? JobState.SCHEDULED : parse(state);
        if (limit < 1) {
            throw new IllegalArgumentException("--limit is " + limit + ": it must be at least 1");
        }
        JobQueue q = main.queue(queue);
        String sortedBy = switch (s) {
            case SCHEDULED -> null; // the DUE column
            case PROCESSING -> "LEASE UNTIL";
            case DONE, DEAD -> "FINISHED";
            case WAITING -> "ENQUEUED";
        };
        if (!main.json()) {
            main.out().printf("%-30s  %-10s  %7s  %-24s  %s%s%n", "ID", "STATE", "ATTEMPT", "DUE",
                    sortedBy == null ? "" : String.format("%-24s  ", sortedBy), "ERROR");
        }
        // JobQueue.stream reads page by page (merging the partitions of a partitioned queue), so any --limit works
        // in little memory; lines are flushed every page.
        long[] printed = {0};
        long[] corrupt = {0};
        (waiting != null ? q.inspector().stream(waiting) : q.inspector().stream(s)).limit(limit).forEach(j -> {
            if (j.corrupt()) {
                corrupt[0]++;
            }
            if (main.json()) {
                main.out().println(Json.line(JobFields.job(j, JobFields.WHOLE_PAYLOAD)));
            } else {
                java.time.Instant sort = s == JobState.PROCESSING ? j.leaseUntil()
                        : s == JobState.WAITING ? j.enqueuedAt() : j.finishedAt();
                main.out().printf("%-30s  %-10s  %7d  %-24s  %s%s%n", Text.field(j.id()), j.state().label(), j.attempt(),
                        j.dueAt() == null ? "-" : j.dueAt(),
                        sortedBy == null ? "" : String.format("%-24s  ", sort == null ? "-" : sort), error(j));
            }
            if (++printed[0] % PAGE == 0) {
                main.out().flush();
            }
        });
        main.out().flush();
        if (corrupt[0] > 0) {
            main.err().println("delayq: warning: " + corrupt[0] + " of the jobs listed have a stored record that cannot be "
                    + "decoded (flagged corrupt): workers move such records to dead when they meet them");
            main.err().flush();
        }
        return Exit.OK;
    }

    private static ScheduledState waiting(String name) {
        for (ScheduledState w : ScheduledState.values()) {
            if (w.label().equalsIgnoreCase(name)) {
                return w;
            }
        }
        return null;
    }

    private static JobState parse(String name) {
        try {
            return JobState.parse(name);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + " (or of the scheduled jobs: ready, delayed or retrying)");
        }
    }

    /** The ERROR column: the last error as a {@link Text#field} (empty when none); a corrupt record flagged first. */
    private static String error(JobInfo j) {
        String error = j.lastError() == null ? "" : Text.field(Text.cut(j.lastError(), 100));
        return j.corrupt() ? "[corrupt record, " + j.payload().length + " raw bytes] " + error : error;
    }
}
