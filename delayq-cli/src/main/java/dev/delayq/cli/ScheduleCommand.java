package dev.delayq.cli;

import dev.delayq.JobQueue;
import dev.delayq.Schedule;
import dev.delayq.ScheduleInfo;
import dev.delayq.internal.base.Validation;
import dev.delayq.internal.present.DurationText;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code delayq schedule add|list|pause|resume|remove|tick}: a queue's recurring schedules. */
@Command(name = "schedule", mixinStandardHelpOptions = true,
        description = {"Recurring schedules: each tick becomes one job of the queue with the id NAME@<tick epoch ms>.",
                "Every worker of the queue ticks its schedules (one job per tick, whatever the number of workers); "
                        + "'schedule tick' does it where no worker runs (e.g. from cron)."},
        subcommands = {ScheduleCommand.Add.class, ScheduleCommand.ListSchedules.class, ScheduleCommand.Pause.class,
                ScheduleCommand.Resume.class, ScheduleCommand.Remove.class, ScheduleCommand.Tick.class},
        footer = {"", "Examples:",
                "  delayq schedule add reports nightly --cron '30 2 * * *' --zone Europe/Berlin --payload sales",
                "  delayq schedule add health ping --every 30s --missed skip",
                "  delayq schedule list reports --json",
                "  delayq schedule pause reports nightly",
                "  delayq schedule resume reports nightly",
                "  delayq schedule remove reports nightly"})
public final class ScheduleCommand implements Callable<Integer> {
    @ParentCommand
    Main main;

    @Override
    public Integer call() {
        throw new IllegalArgumentException("schedule needs a subcommand: add, list, pause, resume, remove or tick (see "
                + "delayq schedule --help)");
    }

    /** {@code delayq schedule add QUEUE NAME (--cron EXPR [--zone ZONE] | --every DUR) ...}. */
    @Command(name = "add", mixinStandardHelpOptions = true,
            description = {"Create or replace a schedule; prints 'created NAME' or 'updated NAME'.",
                    "Its first tick is enqueued at once. Cron: 5 fields (minute hour day-of-month month day-of-week) or 6 "
                            + "(seconds first), on the wall clock of --zone (default UTC); at a daylight-saving change a tick "
                            + "in the skipped hour runs once at the transition and one in the repeated hour runs once. "
                            + "--every: ticks at whole multiples of DUR since the epoch (or --start), at least 1s apart."},
            footer = {"", "Examples:",
                    "  delayq schedule add reports nightly --cron '30 2 * * *' --zone Europe/Berlin",
                    "  delayq schedule add health ping --every 30s --payload '{\"probe\":\"db\"}' --missed once"})
    public static final class Add implements Callable<Integer> {
        @ParentCommand
        ScheduleCommand parent;

        @Parameters(index = "0", paramLabel = "QUEUE", description = "Queue name.")
        String queue;

        @Parameters(index = "1", paramLabel = "NAME", description = "Schedule name: no '@', no control characters, "
                + "not blank, no blank at either end (blanks inside are allowed).")
        String name;

        @ArgGroup(exclusive = true, multiplicity = "1")
        Spec spec;

        static final class Spec {
            @Option(names = "--cron", paramLabel = "EXPR", required = true, description = "Cron expression (5 or 6 fields).")
            String cron;

            @Option(names = "--every", paramLabel = "DUR", required = true, description = "Fixed interval, e.g. 30s, 5m, 1h.")
            String every;
        }

        @Option(names = "--zone", paramLabel = "ZONE", description = "Time zone of --cron, e.g. Europe/Berlin (default UTC).")
        String zone;

        @Option(names = "--payload", paramLabel = "TEXT", description = "Payload of every tick's job (default empty).")
        String payload = "";

        @Option(names = "--missed", paramLabel = "POLICY", description = "Ticks missed while nothing ticked: skip (default), "
                + "once (one catch-up run) or all (each, at most " + Schedule.MAX_CATCH_UP + ").")
        String missed = "skip";

        @Option(names = "--max-attempts", paramLabel = "N", description = "Attempts of each tick's job, 1 to 1000000 (as "
                + "'enqueue --max-attempts'). Default: the worker's retry policy.")
        Integer maxAttempts;

        @Option(names = "--no-overlap", description = "Enqueue a tick only once the previous tick's job has ended.")
        boolean noOverlap;

        @Option(names = "--start", paramLabel = "INSTANT", description = "No tick before, e.g. 2026-12-01T00:00:00Z.")
        String start;

        @Option(names = "--end", paramLabel = "INSTANT", description = "No tick after, e.g. 2027-01-01T00:00:00Z.")
        String end;

        @Override
        public Integer call() {
            // The core's rules, checked before connecting: the name a schedule is stored under, and max attempts as
            // enqueue takes them (0, the library's "not set", is refused as enqueue refuses it: leave the option out).
            Validation.newScheduleName(name);
            if (maxAttempts != null) {
                Validation.maxAttempts(maxAttempts);
            }
            Schedule s;
            if (spec.cron != null) {
                s = Schedule.cron(name, spec.cron, zone(zone));
            } else {
                if (zone != null) {
                    throw new IllegalArgumentException("--zone is for --cron: an --every schedule ticks at fixed instants");
                }
                s = Schedule.every(name, DurationText.parse(spec.every));
            }
            s = s.payload(payload).maxAttempts(maxAttempts != null ? maxAttempts : 0).missed(missed(missed))
                    .noOverlap(noOverlap);
            if (start != null) {
                s = s.start(DurationText.parseInstant(start));
            }
            if (end != null) {
                s = s.end(DurationText.parseInstant(end));
            }
            Main main = parent.main;
            JobQueue q = main.queue(queue, true);
            boolean created = q.schedules().upsert(s);
            if (main.json()) {
                Map<String, Object> m = json(q.schedules().get(name).orElseThrow());
                m.put("created", created);
                main.out().println(Json.line(m));
            } else {
                main.out().println((created ? "created " : "updated ") + name);
            }
            return Exit.OK;
        }

        private static ZoneId zone(String zone) {
            if (zone == null) {
                return ZoneId.of("UTC");
            }
            try {
                return ZoneId.of(zone);
            } catch (DateTimeException e) {
                throw new IllegalArgumentException("--zone '" + zone + "' is not a time zone: use a region such as "
                        + "Europe/Berlin or America/New_York, an offset such as +01:00, or UTC");
            }
        }

        private static Schedule.Missed missed(String text) {
            try {
                return Schedule.Missed.valueOf(text.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--missed '" + text + "' is invalid: use skip, once or all");
            }
        }
    }

    /** {@code delayq schedule list QUEUE [--json]}. */
    @Command(name = "list", mixinStandardHelpOptions = true,
            description = {"List a queue's schedules: name, spec, zone, next tick (the one enqueued ahead; 'paused' while "
                    + "paused), last tick. A name or cron expression with blanks, quotes or the like is printed in double "
                    + "quotes with backslash escapes.",
                    "With --json, one object per line: name, spec, cron, every, zone, nextTick, lastTick, missed, "
                            + "maxAttempts, noOverlap, start, end, payload, paused."},
            footer = {"", "Examples:", "  delayq schedule list reports", "  delayq schedule list reports --json"})
    public static final class ListSchedules implements Callable<Integer> {
        /** One row of the table, the header included. */
        private static final String ROW = "%-24s  %-20s  %-16s  %-24s  %-24s  %s%n";

        @ParentCommand
        ScheduleCommand parent;

        @Parameters(index = "0", paramLabel = "QUEUE", description = "Queue name.")
        String queue;

        @Override
        public Integer call() {
            Main main = parent.main;
            List<ScheduleInfo> all = main.queue(queue).schedules().list();
            if (main.json()) {
                all.forEach(i -> main.out().println(Json.line(json(i))));
                return Exit.OK;
            }
            main.out().printf(ROW, "NAME", "SPEC", "ZONE", "NEXT", "LAST", "MISSED");
            for (ScheduleInfo i : all) {
                Schedule s = i.schedule();
                // The name and a cron expression are user data: quoted when they hold blanks (a cron expression always
                // does), so that columns cannot be confused; "every 30s" is the command's own.
                main.out().printf(ROW, Text.field(s.name()),
                        s.cronExpression() != null ? Text.field(s.cronExpression()) : spec(s),
                        s.zone() == null ? "-" : Text.field(s.zone().getId()),
                        i.paused() ? "paused" : i.nextTick() == null ? "-" : i.nextTick(),
                        i.lastTick() == null ? "-" : i.lastTick(), s.missed().name().toLowerCase(Locale.ROOT)
                                + (s.noOverlap() ? ", no overlap" : ""));
            }
            return Exit.OK;
        }
    }

    /** {@code delayq schedule pause QUEUE NAME}. */
    @Command(name = "pause", mixinStandardHelpOptions = true,
            description = {"Pause a schedule: it makes no tick until resumed. Its pending tick is cancelled when not yet "
                    + "started (a running tick finishes); 'schedule add' while paused changes it and leaves it paused.",
                    "Prints 'paused NAME' ('already paused NAME' when it was); exit 2 when there is no such schedule."},
            footer = {"", "Examples:", "  delayq schedule pause reports nightly"})
    public static final class Pause implements Callable<Integer> {
        @ParentCommand
        ScheduleCommand parent;

        @Parameters(index = "0", paramLabel = "QUEUE", description = "Queue name.")
        String queue;

        @Parameters(index = "1", paramLabel = "NAME", description = "Schedule name.")
        String name;

        @Override
        public Integer call() {
            return pauseOrResume(parent.main, queue, name, true);
        }
    }

    /** {@code delayq schedule resume QUEUE NAME}. */
    @Command(name = "resume", mixinStandardHelpOptions = true,
            description = {"Resume a paused schedule: its next tick is the first after now. The ticks that passed while it "
                    + "was paused are skipped, whatever its --missed policy.",
                    "Prints 'resumed NAME' ('already resumed NAME' when it was not paused); exit 2 when there is no such schedule."},
            footer = {"", "Examples:", "  delayq schedule resume reports nightly"})
    public static final class Resume implements Callable<Integer> {
        @ParentCommand
        ScheduleCommand parent;

        @Parameters(index = "0", paramLabel = "QUEUE", description = "Queue name.")
        String queue;

        @Parameters(index = "1", paramLabel = "NAME", description = "Schedule name.")
        String name;

        @Override
        public Integer call() {
            return pauseOrResume(parent.main, queue, name, false);
        }
    }

    private static int pauseOrResume(Main main, String queue, String name, boolean pause) {
        JobQueue q = main.queue(queue);
        // Read first to say whether it changed, as 'pause QUEUE' says "already paused"; the change itself is atomic.
        boolean already = q.schedules().get(name).map(i -> i.paused() == pause).orElse(false);
        boolean found = pause ? q.schedules().pause(name) : q.schedules().resume(name);
        if (!found) {
            throw new CliException(Exit.USAGE, "no schedule '" + name + "' in queue '" + queue + "': 'delayq schedule list "
                    + queue + "' shows its schedules");
        }
        String verb = pause ? "paused " : "resumed ";
        if (main.json()) {
            Map<String, Object> m = json(q.schedules().get(name).orElseThrow());
            m.put("changed", !already);
            main.out().println(Json.line(m));
        } else {
            main.out().println((already ? "already " : "") + verb + name);
        }
        return Exit.OK;
    }

    /** {@code delayq schedule remove QUEUE NAME}. */
    @Command(name = "remove", mixinStandardHelpOptions = true,
            description = {"Remove a schedule and cancel its pending tick (a running tick finishes).",
                    "Prints 'removed NAME'; exit 1 when there is no such schedule."},
            footer = {"", "Examples:", "  delayq schedule remove reports nightly"})
    public static final class Remove implements Callable<Integer> {
        @ParentCommand
        ScheduleCommand parent;

        @Parameters(index = "0", paramLabel = "QUEUE", description = "Queue name.")
        String queue;

        @Parameters(index = "1", paramLabel = "NAME", description = "Schedule name.")
        String name;

        @Override
        public Integer call() {
            Main main = parent.main;
            boolean removed = main.queue(queue).schedules().remove(name);
            if (main.json()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("name", name);
                m.put("removed", removed);
                main.out().println(Json.line(m));
            } else if (removed) {
                main.out().println("removed " + name);
            }
            if (!removed) {
                throw new CliException(Exit.FAILED, "no schedule '" + name + "' in queue '" + queue + "'");
            }
            return Exit.OK;
        }
    }

    /** {@code delayq schedule tick QUEUE}. */
    @Command(name = "tick", mixinStandardHelpOptions = true,
            description = {"Advance the queue's due schedules once (what every worker does by itself): enqueue their next "
                    + "ticks, and catch-up ticks as their missed-tick policy says. For setups without workers of the queue.",
                    "Safe to run from many places at once: one job per tick. Prints 'ticked QUEUE: N job(s) enqueued'."},
            footer = {"", "Examples:", "  delayq schedule tick reports"})
    public static final class Tick implements Callable<Integer> {
        @ParentCommand
        ScheduleCommand parent;

        @Parameters(index = "0", paramLabel = "QUEUE", description = "Queue name.")
        String queue;

        @Override
        public Integer call() {
            Main main = parent.main;
            int n = main.queue(queue).schedules().tick();
            if (main.json()) {
                main.out().println(Json.line(Map.of("queue", queue, "enqueued", n)));
            } else {
                main.out().println("ticked " + queue + ": " + n + " job(s) enqueued");
            }
            return Exit.OK;
        }
    }

    static String spec(Schedule s) {
        return s.cronExpression() != null ? s.cronExpression() : "every " + DurationText.format(s.every());
    }

    static Map<String, Object> json(ScheduleInfo i) {
        Schedule s = i.schedule();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", s.name());
        m.put("spec", spec(s));
        m.put("cron", s.cronExpression());
        m.put("every", s.every() == null ? null : DurationText.format(s.every()));
        m.put("everyMillis", s.every() == null ? null : s.every().toMillis());
        m.put("zone", s.zone() == null ? null : s.zone().getId());
        m.put("nextTick", instant(i.nextTick()));
        m.put("lastTick", instant(i.lastTick()));
        m.put("nextTickId", i.nextTick() == null ? null : ScheduleInfo.tickId(s.name(), i.nextTick()));
        m.put("missed", s.missed().name().toLowerCase(Locale.ROOT));
        m.put("maxAttempts", s.maxAttempts() == 0 ? null : s.maxAttempts());
        m.put("noOverlap", s.noOverlap());
        m.put("start", instant(s.start()));
        m.put("end", instant(s.end()));
        m.put("payload", s.payload());
        m.put("paused", i.paused());
        return m;
    }

    private static String instant(Instant t) {
        return t == null ? null : t.toString();
    }
}
