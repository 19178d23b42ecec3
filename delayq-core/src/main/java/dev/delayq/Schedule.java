package dev.delayq;

import dev.delayq.internal.base.Crons;
import dev.delayq.internal.base.ScriptLimits;
import dev.delayq.internal.base.Validation;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Objects;

/**
 * A recurring schedule of a queue: each tick becomes one ordinary job of the queue with the id
 * {@code <name>@<tick time in epoch ms>} and the job name {@code <name>}. Immutable; the options return a copy.
 * Stored with {@link Schedules#upsert(Schedule)}.
 *
 * <p>{@link #cron(String, String, ZoneId)}: a cron expression of 5 fields (minute hour day-of-month month day-of-week)
 * or 6 (with seconds first), evaluated on the wall clock of a time zone. At a daylight-saving change, a tick that falls
 * in the skipped hour runs once, at the transition (ticks that meet there run once), and a tick in the repeated hour
 * runs once, in its first pass. {@link #every(String, Duration)}: ticks at {@code start + k * every} (start defaults
 * to the epoch, so {@code every(1h)} ticks on the hour, UTC), unaffected by time zones.
 *
 * <pre>{@code
 * queue.schedules().upsert(Schedule.cron("nightly-report", "30 2 * * *", ZoneId.of("Europe/Berlin"))
 *         .payload("{\"report\":\"sales\"}").missed(Schedule.Missed.ONCE));
 * }</pre>
 */
public final class Schedule {
    /** Catch-up ticks enqueued at most for {@link Missed#ALL}: the latest ones are kept. */
    public static final int MAX_CATCH_UP = ScriptLimits.MAX_CATCH_UP;
    /** The shortest interval of {@link #every(String, Duration)}. */
    public static final Duration MIN_EVERY = Duration.ofSeconds(1);
    /** The longest schedule name, in UTF-8 bytes: a job name's limit, since each tick's job is named after it. */
    public static final int MAX_NAME_BYTES = Bounds.MAX_NAME_BYTES;
    /** The largest payload of a schedule's ticks, in UTF-8 bytes. */
    public static final int MAX_PAYLOAD_BYTES = 64 * 1024;

    /** What happens to ticks that passed while no worker (and no {@code delayq schedule tick}) ran. */
    public enum Missed {
        /** Missed ticks are dropped: the schedule goes on with its next future tick (the default). */
        SKIP,
        /** One catch-up run, for the latest missed tick, then the next future tick. */
        ONCE,
        /** Every missed tick runs, up to {@link #MAX_CATCH_UP} (the latest ones), then the next future tick. */
        ALL
    }

    private final String name;
    private final String cron;
    private final ZoneId zone;
    private final Duration every;
    private final String payload;
    private final int maxAttempts;
    private final Missed missed;
    private final Instant start;
    private final Instant end;
    private final boolean noOverlap;

    private Schedule(String name, String cron, ZoneId zone, Duration every, String payload, int maxAttempts, Missed missed,
                     Instant start, Instant end, boolean noOverlap) {
        this.name = name;
        this.cron = cron;
        this.zone = zone;
        this.every = every;
        this.payload = payload;
        this.maxAttempts = maxAttempts;
        this.missed = missed;
        this.start = start;
        this.end = end;
        this.noOverlap = noOverlap;
    }

    /**
     * A cron schedule.
     *
     * @param expression 5 fields ({@code min hour day-of-month month day-of-week}) or 6 (seconds first); lists, ranges,
     *                   steps, names ({@code MON}, {@code JAN}), {@code L}, {@code W} and {@code #} as in cron-utils
     * @param zone       whose wall clock the expression reads
     * @throws IllegalArgumentException for a bad name, expression or zone, with what is allowed
     */
    public static Schedule cron(String name, String expression, ZoneId zone) {
        Validation.scheduleName(name);
        if (zone == null) {
            throw new IllegalArgumentException("zone of schedule '" + name + "' must not be null: use a region such as "
                    + "Europe/Berlin, or UTC");
        }
        Crons.parse(expression);
        return new Schedule(name, expression.trim(), zone, null, "", 0, Missed.SKIP, null, null, false);
    }

    /**
     * A fixed-interval schedule.
     *
     * @throws IllegalArgumentException for a bad name, or an interval under {@link #MIN_EVERY} or not a whole number of
     *                                  milliseconds
     */
    public static Schedule every(String name, Duration every) {
        Validation.scheduleName(name);
        if (every == null || every.compareTo(MIN_EVERY) < 0 || every.getNano() % 1_000_000 != 0
                || every.compareTo(Duration.ofDays(366 * 100)) > 0) {
            throw new IllegalArgumentException("interval of schedule '" + name + "' is " + every + ": use 1s to 100 years "
                    + "in whole milliseconds (ticks more often than once a second are not supported)");
        }
        return new Schedule(name, null, null, every, "", 0, Missed.SKIP, null, null, false);
    }

    /** The payload of every tick's job (UTF-8 text, at most {@link #MAX_PAYLOAD_BYTES}); empty by default. */
    public Schedule payload(String payload) {
        if (payload == null || payload.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_PAYLOAD_BYTES) {
            throw new IllegalArgumentException("payload of schedule '" + name + "' must be 0-" + MAX_PAYLOAD_BYTES
                    + " bytes of text");
        }
        return new Schedule(name, cron, zone, every, payload, maxAttempts, missed, start, end, noOverlap);
    }

    /**
     * Attempts of each tick's job (1 to 1,000,000, as a job's own, {@link Job.Builder#maxAttempts}); 0, the default,
     * leaves it to the worker's retry policy.
     */
    public Schedule maxAttempts(int maxAttempts) {
        Validation.maxAttemptsOrPolicy("max attempts of schedule '" + name + "'", maxAttempts);
        return new Schedule(name, cron, zone, every, payload, maxAttempts, missed, start, end, noOverlap);
    }

    /** What to do with ticks missed while nothing ticked ({@link Missed#SKIP} by default). */
    public Schedule missed(Missed missed) {
        if (missed == null) {
            throw new IllegalArgumentException("missed-tick policy of schedule '" + name + "' must not be null: use SKIP, "
                    + "ONCE or ALL");
        }
        return new Schedule(name, cron, zone, every, payload, maxAttempts, missed, start, end, noOverlap);
    }

    /** No tick before {@code start} (null: none); an {@link #every} schedule counts its ticks from it. */
    public Schedule start(Instant start) {
        checkWindow(start, end);
        return new Schedule(name, cron, zone, every, payload, maxAttempts, missed, start, end, noOverlap);
    }

    /** No tick after {@code end} (null: none); the schedule then stays listed with no next tick. */
    public Schedule end(Instant end) {
        checkWindow(start, end);
        return new Schedule(name, cron, zone, every, payload, maxAttempts, missed, start, end, noOverlap);
    }

    /**
     * No overlap: a tick is enqueued only once the previous tick's job has ended (done or dead); ticks that pass
     * meanwhile count as missed. Off by default (the next tick is enqueued ahead, whatever the previous one does).
     */
    public Schedule noOverlap(boolean noOverlap) {
        return new Schedule(name, cron, zone, every, payload, maxAttempts, missed, start, end, noOverlap);
    }

    private void checkWindow(Instant s, Instant e) {
        if (s != null) {
            Validation.instant("start of schedule '" + name + "'", s);
        }
        if (e != null) {
            Validation.instant("end of schedule '" + name + "'", e);
        }
        if (s != null && e != null && !e.isAfter(s)) {
            throw new IllegalArgumentException("end of schedule '" + name + "' (" + e + ") is not after its start (" + s
                    + "): the end must come after the start");
        }
    }

    /**
     * The schedule's name (1-128 bytes, no {@code @}, no control characters); {@link Schedules#upsert} also refuses a
     * blank name and one with blanks at either end.
     */
    public String name() {
        return name;
    }

    /** The cron expression, or null for an {@link #every} schedule. */
    public String cronExpression() {
        return cron;
    }

    /** The zone of a cron schedule, or null for an {@link #every} schedule. */
    public ZoneId zone() {
        return zone;
    }

    /** The interval of an {@link #every} schedule, or null for a cron schedule. */
    public Duration every() {
        return every;
    }

    /** The schedule in one short text: the cron expression, or {@code every <interval>} (e.g. {@code every 5m}). */
    public String spec() {
        return cron != null ? cron : "every " + Validation.human(every);
    }

    /** The payload of every tick's job (empty by default). */
    public String payload() {
        return payload;
    }

    /** Attempts of each tick's job; 0 leaves it to the worker's retry policy. */
    public int maxAttempts() {
        return maxAttempts;
    }

    /** The missed-tick policy. */
    public Missed missed() {
        return missed;
    }

    /** No tick before this instant (null: none). */
    public Instant start() {
        return start;
    }

    /** No tick after this instant (null: none). */
    public Instant end() {
        return end;
    }

    /** Whether a tick waits for the previous tick's job to end. */
    public boolean noOverlap() {
        return noOverlap;
    }

    /** Whether {@code other} ticks at the same times (spec, zone, start, end): then its pending tick can stay. */
    public boolean sameTimes(Schedule other) {
        return Objects.equals(cron, other.cron) && Objects.equals(zone, other.zone) && Objects.equals(every, other.every)
                && Objects.equals(start, other.start) && Objects.equals(end, other.end);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Schedule s && name.equals(s.name) && sameTimes(s) && payload.equals(s.payload)
                && maxAttempts == s.maxAttempts && missed == s.missed && noOverlap == s.noOverlap;
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, cron, zone, every, payload, maxAttempts, missed, start, end, noOverlap);
    }

    @Override
    public String toString() {
        return "Schedule[" + name + ", " + spec() + (zone != null ? " " + zone : "") + ", missed " + missed
                + (noOverlap ? ", no overlap" : "") + (start != null ? ", from " + start : "")
                + (end != null ? ", until " + end : "") + "]";
    }
}
