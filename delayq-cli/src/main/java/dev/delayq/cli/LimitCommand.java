package dev.delayq.cli;

import dev.delayq.GroupStats;
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
                "Groups (docs/groups.md): --group-concurrency N and --group-rate N/DUR limit every group of the queue "
                        + "('none' removes that limit); with --group G, --concurrency and --rate override them for G "
                        + "(the one named replaces only that one), --weight W gives G W jobs per turn, --clear returns G "
                        + "to the defaults. Prints 'limits QUEUE group G: concurrency 2, rate 10/1s, weight 1'.",
                "A queue that is not known (no job was ever enqueued to it) is refused with exit 2 and nothing is "
                        + "written: a queue created later under that name would start with the limits. --create creates "
                        + "it and sets them."},
        footer = {"", "Examples:", "  delayq limit mail --rate 50/1s", "  delayq limit reports --concurrency 4",
                "  delayq limit mail --clear", "  delayq limit imports --rate 10/s --create",
                "  delayq limit mail --group-concurrency 2 --group-rate 100/1m",
                "  delayq limit mail --group tenant-42 --concurrency 5 --weight 2", "  delayq limit mail --group tenant-42 --clear"})
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

    @Option(names = "--group-concurrency", paramLabel = "N|none",
            description = "At most N jobs of each group running at once, all workers together ('none': no such limit).")
    String groupConcurrency;

    @Option(names = "--group-rate", paramLabel = "N/DUR|none",
            description = "At most N jobs of each group started per window DUR ('none': no such limit).")
    String groupRate;

    @Option(names = "--group", paramLabel = "G",
            description = "Show or set one group's own limits: --concurrency, --rate, --weight and --clear apply to it.")
    String group;

    @Option(names = "--weight", paramLabel = "W", description = "With --group: the jobs G gets per turn (1 to 1000).")
    Integer weight;

    @Option(names = "--create", description = "Create the queue if it is not known (without it an unknown queue is "
            + "refused and nothing is written).")
    boolean create;

    @Override
    public Integer call() {
        if (group != null) {
            return groupCall();
        }
        if (weight != null) {
            throw new IllegalArgumentException("--weight is a group's: use it with --group G");
        }
        if (clear && (rate != null || concurrency != null)) {
            throw new IllegalArgumentException("--clear removes both limits, so it does not go with --rate or "
                    + "--concurrency: use one or the other (--rate and --concurrency replace only the limit they name)");
        }
        DurationText.Rate parsedRate = rate != null ? DurationText.parseRate("--rate", rate) : null;
        Limits wanted = null;
        boolean change = clear || rate != null || concurrency != null || groupRate != null || groupConcurrency != null;
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
            if (clear || rate != null || concurrency != null) {
                q.inspector().limits(wanted);
            }
        }
        Limits every = null;
        if (groupRate != null || groupConcurrency != null) {
            every = q.inspector().groups(1).limits();
            if (groupRate != null) {
                every = groupRate.equals("none") ? withoutRate(every)
                        : every.withRate(DurationText.parseRate("--group-rate", groupRate).jobs(),
                        DurationText.parseRate("--group-rate", groupRate).per());
            }
            if (groupConcurrency != null) {
                every = groupConcurrency.equals("none") ? withoutConcurrency(every)
                        : every.concurrency(number("--group-concurrency", groupConcurrency));
            }
            q.inspector().groupLimits(every);
        }
        Limits now = wanted != null ? wanted : q.inspector().limits();
        if (every == null) {
            every = q.inspector().groups(1).limits();
        }
        if (main.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("queue", queue);
            m.put("rate", now.rateJobs() > 0 ? now.rateJobs() + "/" + DurationText.format(now.ratePer()) : null);
            m.put("concurrency", now.concurrency() > 0 ? now.concurrency() : null);
            m.put("groupRate", every.rateJobs() > 0 ? every.rateJobs() + "/" + DurationText.format(every.ratePer()) : null);
            m.put("groupConcurrency", every.concurrency() > 0 ? every.concurrency() : null);
            main.out().println(Json.line(m));
        } else {
            boolean groups = every.rateJobs() > 0 || every.concurrency() > 0;
            main.out().println("limits " + queue + ": " + describe(now) + (groups ? "; every group: " + describe(every) : ""));
        }
        return Exit.OK;
    }

    /** {@code --group G}: one group's own limits and weight. */
    private Integer groupCall() {
        if (groupRate != null || groupConcurrency != null) {
            throw new IllegalArgumentException("--group-rate and --group-concurrency set every group's limits: not with "
                    + "--group G (use --rate and --concurrency for G's own)");
        }
        if (clear && (rate != null || concurrency != null || weight != null)) {
            throw new IllegalArgumentException("--clear returns the group to the defaults, so it does not go with --rate, "
                    + "--concurrency or --weight");
        }
        boolean change = clear || rate != null || concurrency != null || weight != null;
        JobQueue q = main.knownQueue(queue, create, change
                ? "Nothing was changed: --create creates the queue and sets the group's limits"
                : "A queue that does not exist has no groups to show (--create creates it)");
        if (clear) {
            q.inspector().clearGroupLimits(group);
        } else if (rate != null || concurrency != null) {
            Limits own = Limits.none();
            if (rate != null) {
                DurationText.Rate r = DurationText.parseRate("--rate", rate);
                own = own.withRate(r.jobs(), r.per());
            }
            if (concurrency != null) {
                own = own.concurrency(concurrency);
            }
            q.inspector().groupLimits(group, own);
        }
        if (weight != null) {
            q.inspector().groupWeight(group, weight);
        }
        GroupStats all = q.inspector().groups(GroupStats.MAX_READ);
        GroupStats.Group g = all.top().stream().filter(x -> x.group().equals(group)).findFirst()
                .orElse(new GroupStats.Group(group, 0, 0, all.limits(), 1));
        if (main.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("queue", queue);
            m.put("group", group);
            m.put("rate", g.limits().rateJobs() > 0 ? g.limits().rateJobs() + "/" + DurationText.format(g.limits().ratePer()) : null);
            m.put("concurrency", g.limits().concurrency() > 0 ? g.limits().concurrency() : null);
            m.put("weight", g.weight());
            main.out().println(Json.line(m));
        } else {
            main.out().println("limits " + queue + " group " + group + ": " + describe(g.limits()) + ", weight " + g.weight());
        }
        return Exit.OK;
    }

    private static int number(String option, String v) {
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " is '" + v + "': use a whole number from 1 or 'none'");
        }
    }

    private static Limits withoutRate(Limits l) {
        return l.concurrency() > 0 ? Limits.ofConcurrency(l.concurrency()) : Limits.none();
    }

    private static Limits withoutConcurrency(Limits l) {
        return l.rateJobs() > 0 ? Limits.rate(l.rateJobs(), l.ratePer()) : Limits.none();
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
