package dev.delayq.cli;

import dev.delayq.JobQueue;
import dev.delayq.Limits;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code delayq limit QUEUE [--rate N/DUR] [--concurrency N] [--clear]}: a queue's flow limits. */
@Command(name = "limit", mixinStandardHelpOptions = true,
        description = {"Show or set a queue's flow limits, kept in Redis and enforced inside every claim, so they hold "
                + "across all workers at once.",
                "--rate N/DUR: at most N jobs handed out in any window of DUR (a sliding window on Redis's clock: no "
                        + "burst above N in any window). --concurrency N: at most N jobs running at once, all workers "
                        + "together. Options given replace those limits; --clear removes both first. Prints the limits "
                        + "that hold afterwards: 'limits QUEUE: rate 50/1s, concurrency 10'."},
        footer = {"", "Examples:", "  delayq limit mail --rate 50/1s", "  delayq limit reports --concurrency 4",
                "  delayq limit mail --clear"})
public final class LimitCommand implements Callable<Integer> {
    private static final Pattern RATE = Pattern.compile("(\\d{1,10})/(.+)");

    @ParentCommand
    Main main;

    @Parameters(index = "0", paramLabel = "QUEUE", description = "Queue name.")
    String queue;

    @Option(names = "--rate", paramLabel = "N/DUR", description = "At most N jobs handed out per window DUR, e.g. 50/1s.")
    String rate;

    @Option(names = "--concurrency", paramLabel = "N", description = "At most N jobs running at once, all workers together.")
    Integer concurrency;

    @Option(names = "--clear", description = "Remove both limits (before applying --rate or --concurrency, if given).")
    boolean clear;

    @Override
    public Integer call() {
        Limits wanted = null;
        int[] parsedRate = null;
        Duration per = null;
        if (rate != null) {
            Matcher m = RATE.matcher(rate.trim());
            if (!m.matches()) {
                throw new IllegalArgumentException("--rate '" + rate + "' is invalid: use N/DUR, e.g. 50/1s or 1000/1m");
            }
            per = Durations.parse(m.group(2));
            long n = Long.parseLong(m.group(1));
            if (n < 1 || n > 1_000_000_000L) {
                throw new IllegalArgumentException("--rate " + rate + ": N must be from 1 to 1000000000");
            }
            parsedRate = new int[] {(int) n};
        }
        JobQueue q = main.queue(queue);
        if (clear || rate != null || concurrency != null) {
            Limits base = clear ? Limits.none() : q.limits();
            wanted = base;
            if (parsedRate != null) {
                wanted = wanted.withRate(parsedRate[0], per);
            }
            if (concurrency != null) {
                wanted = wanted.concurrency(concurrency);
            }
            q.limits(wanted);
        }
        Limits now = wanted != null ? wanted : q.limits();
        if (main.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("queue", queue);
            m.put("rate", now.rateJobs() > 0 ? now.rateJobs() + "/" + Durations.format(now.ratePer()) : null);
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
        String r = l.rateJobs() > 0 ? "rate " + l.rateJobs() + "/" + Durations.format(l.ratePer()) : "";
        String c = l.concurrency() > 0 ? "concurrency " + l.concurrency() : "";
        return r.isEmpty() ? c : c.isEmpty() ? r : r + ", " + c;
    }
}
