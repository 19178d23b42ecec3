package dev.delayq.cli;

import dev.delayq.QueueStats;
import dev.delayq.internal.present.DurationText;
import dev.delayq.internal.present.JobFields;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code delayq stats QUEUE}: counts per state and totals. */
@Command(name = "stats", mixinStandardHelpOptions = true,
        description = {"Show a queue's jobs per state and its running totals.",
                "Also whether it is paused and its oldest due job: when it fell due and how long it has waited past "
                        + "that by Redis's clock (a lag that grows means too few workers). --json keys: queue, scheduled, "
                        + "processing, done, dead, waiting (jobs waiting for their parents, docs/flows.md; not in scheduled), "
                        + "totals, paused, oldestDueAt, oldestDueLagMillis, rate (e.g. 50/1s, or "
                        + "null), concurrency (or null), events (the event stream's cap while it is on, or null), "
                        + "pastRetention (done and dead jobs kept past their retention, waiting for the workers' purge: "
                        + "a figure that keeps growing means the purge does not keep up; null until a worker has purged "
                        + "the queue), ready, delayed and retrying (the scheduled jobs by state: due now, due later, "
                        + "failed and waiting for a retry still to come; they add up to scheduled), workers (its live workers, by their heartbeats: 0 with jobs due means no worker "
                        + "runs them, flagged 'no workers' in the text)."},
        footer = {"", "Examples:", "  delayq stats orders", "  delayq stats orders --json | jq .scheduled"})
public final class StatsCommand implements Callable<Integer> {
    @ParentCommand
    Main main;

    @Parameters(index = "0", paramLabel = "QUEUE", description = "Queue name.")
    String queue;

    @picocli.CommandLine.Option(names = "--groups", description = "The queue's groups instead (docs/groups.md): the "
            + "groups with the largest backlogs (--top, default 20, at most 10000, ranked among at most 10000 groups per "
            + "partition), each with its scheduled jobs, running leases, limits and weight.")
    boolean groups;

    @picocli.CommandLine.Option(names = "--top", paramLabel = "N", description = "With --groups: how many groups (1 to 10000).")
    Integer top;

    @Override
    public Integer call() {
        if (top != null && !groups) {
            throw new IllegalArgumentException("--top goes with --groups");
        }
        if (groups) {
            return groupsCall();
        }
        dev.delayq.QueueInspector inspector = main.inspector(queue);
        QueueStats s = inspector.stats();
        int workers = inspector.workers().size();
        if (main.json()) {
            main.out().println(Json.line(JobFields.stats(s, workers)));
        } else {
            main.out().printf("queue       %s%n", s.queue());
            main.out().printf("scheduled   %d%nprocessing  %d%ndone        %d%ndead        %d%n",
                    s.scheduled(), s.processing(), s.done(), s.dead());
            if (s.waiting() > 0) {
                main.out().printf("waiting     %d (for their parents)%n", s.waiting());
            }
            if (s.ready() >= 0) {
                main.out().printf("  ready     %d (due now)%n  delayed   %d (due later)%n  retrying  %d (failed, waiting "
                        + "for a retry)%n", s.ready(), s.delayed(), s.retrying());
            }
            main.out().printf("past retention %s%n", s.pastRetention() < 0 ? "- (no worker has purged the queue yet)"
                    : s.pastRetention() + " (kept done and dead jobs waiting for the purge)");
            main.out().printf("paused      %s%n", s.paused() ? "yes" : "no");
            main.out().printf("workers     %d%s%n", workers, JobFields.unattended(s, workers)
                    ? " (no workers: jobs are due and no live worker runs them)" : "");
            main.out().printf("limits      %s%n", LimitCommand.describe(s.limits()));
            if (s.groups() > 0) {
                main.out().printf("groups      %d (with scheduled jobs: stats %s --groups)%n", s.groups(), s.queue());
            }
            main.out().printf("events      %s%n", s.eventsCap() > 0 ? "on (keeps the last " + s.eventsCap() + ")" : "off");
            main.out().printf("oldest due  %s%n", s.oldestDueAtMillis() < 0 ? "-"
                    : java.time.Instant.ofEpochMilli(s.oldestDueAtMillis()) + (s.oldestDueLagMillis() > 0
                            ? " (due " + DurationText.format(java.time.Duration.ofMillis(s.oldestDueLagMillis())) + " ago)"
                            : " (not due yet)"));
            main.out().println("totals");
            for (String t : QueueStats.TOTALS) {
                // A name of 10 characters or more (quarantined) still gets a space before its number.
                main.out().printf("  %-10s%s%d%n", t, t.length() >= 10 ? " " : "", s.total(t));
            }
        }
        return Exit.OK;
    }

    private Integer groupsCall() {
        int n = top != null ? top : 20;
        if (n < 1 || n > 10_000) {
            throw new IllegalArgumentException("--top is " + n + ": it must be between 1 and 10000");
        }
        dev.delayq.GroupStats g = main.inspector(queue).groups(n);
        if (main.json()) {
            main.out().println(Json.line(JobFields.groups(queue, g)));
            return Exit.OK;
        }
        main.out().printf("groups %s: %d; every group: %s%n", queue, g.groups(), LimitCommand.describe(g.limits()));
        int w = Math.max(5, g.top().stream().mapToInt(x -> x.group().length()).max().orElse(5));
        main.out().printf("%-" + w + "s  %9s  %7s  %6s  %s%n", "GROUP", "SCHEDULED", "RUNNING", "WEIGHT", "LIMITS");
        for (dev.delayq.GroupStats.Group x : g.top()) {
            main.out().printf("%-" + w + "s  %9d  %7d  %6d  %s%n", x.group(), x.scheduled(), x.running(), x.weight(),
                    LimitCommand.describe(x.limits()));
        }
        return Exit.OK;
    }
}
