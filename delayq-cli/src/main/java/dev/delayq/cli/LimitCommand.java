package dev.delayq.cli;

import dev.delayq.JobQueue;
import dev.delayq.Limits;
import dev.delayq.internal.present.DurationText;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code delayq limit QUEUE [--rate N/DUR] [--concurrency N] [--clear]}: a queue's flow limits. */
@Command(name = "limit", mixinStandardHelpOptions = true,
        description = {"Show or set a queue's flow limits, kept in Redis and enforced inside every claim, so they hold "
                + "across all workers at once.",
                "--rate N/DUR: at most N jobs handed out in any window of DUR (a sliding window on Redis's clock: no "
                        + "burst above N in any window); N/s, N/m, N/h, N/d are N per second, minute, hour, day. "
                        + "--concurrency N: at most N jobs running at once, all workers together. Options given replace "
                        + "those limits, the other one stays; --clear (alone) removes both. Prints the limits that hold "
                        + "afterwards: 'limits QUEUE: rate 50/1s, concurrency 10'.",
                "A queue that is not known (no job was ever enqueued to it) is refused with exit 2 and nothing is "
                        + "written: a queue created later under that name would start with the limits. --create creates "
                        + "it and sets them."},
        footer = {"", "Examples:", "  delayq limit mail --rate 50/1s", "  delayq limit reports --concurrency 4",
                "  delayq limit mail --clear", "  delayq limit imports --rate 10/s --create"})
public final class LimitCommand implements Callable<Integer> {
    @ParentCommand
    Main main;

    @Parameters(index = "0", paramLabel = "QUEUE", description = "Queue name.")
    String queue;

    @Option(names = "--rate", paramLabel = "N/DUR",
            description = "At most N jobs handed out per window DUR, e.g. 50/1s or 1000/1m; or per unit: 10/s, 600/m.")
    String rate;

    @Option(names = "--concurrency", paramLabel = "N", description = "At most N jobs running at once, all workers together.")
    Integer concurrency;

    @Option(names = "--clear", description = "Remove both limits (not with --rate or --concurrency).")
    boolean clear;

    @Option(names = "--create", description = "Create the queue if it is not known (without it an unknown queue is "
            + "refused and nothing is written).")
    boolean create;

    @Override
    public Integer call() {
        if (clear && (rate != null || concurrency != null)) {
            throw new IllegalArgumentException("--clear removes both limits, so it does not go with --rate or "
                    + "--concurrency: use one or the other (--rate and --concurrency replace only the limit they name)");
        }
        DurationText.Rate parsedRate = rate != null ? DurationText.parseRate("--rate", rate) : null;
        Limits wanted = null;
        boolean change = clear || rate != null || concurrency != null;
        JobQueue q = main.knownQueue(queue, create, change
                ? "Nothing was changed: --create creates the queue and sets its limits"
                : "A queue that does not exist has no limits to show (--create creates it)");
        if (change) {
            wanted = clear ? Limits.none() : q.inspector().limits();
            if (parsedRate != null) {
                wanted = wanted.withRate(parsedRate.jobs(), parsedRate.per());
            }
            if (concurrency != null) {
                wanted = wanted.concurrency(concurrency);
            }
            q.inspector().limits(wanted);
        }
        Limits now = wanted != null ? wanted : q.inspector().limits();
        if (main.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("queue", queue);
            m.put("rate", now.rateJobs() > 0 ? now.rateJobs() + "/" + DurationText.format(now.ratePer()) : null);
            m.put("concurrency", now.concurrency() > 0 ? now.concurrency() : null);
            main.out().println(Json.line(m));
        } else {
            main.out().println("limits " + queue + ": " + describe(now));
        }
        return Exit.OK;
    }

    /** {@code rate 50/1s, concurrency 10}, or {@code none}. */
    static String describe(Limits l) {
        if (l.rateJobs() == 0 && l.concurrency() == 0) {
            return "none";
        }
        String r = l.rateJobs() > 0 ? "rate " + l.rateJobs() + "/" + DurationText.format(l.ratePer()) : "";
        String c = l.concurrency() > 0 ? "concurrency " + l.concurrency() : "";
        return r.isEmpty() ? c : c.isEmpty() ? r : r + ", " + c;
    }
}
