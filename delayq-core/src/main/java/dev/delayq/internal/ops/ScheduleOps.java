package dev.delayq.internal.ops;

import static dev.delayq.internal.ops.Args.num;
import static dev.delayq.internal.ops.Args.utf8;
import static dev.delayq.internal.ops.ScriptKey.DEDUPE;
import static dev.delayq.internal.ops.ScriptKey.DEDUPE_HOLDS;
import static dev.delayq.internal.ops.ScriptKey.DUE;
import static dev.delayq.internal.ops.ScriptKey.EVENTS;
import static dev.delayq.internal.ops.ScriptKey.HISTORY;
import static dev.delayq.internal.ops.ScriptKey.JOBS;
import static dev.delayq.internal.ops.ScriptKey.META;
import static dev.delayq.internal.ops.ScriptKey.PAUSED_SCHEDULES;
import static dev.delayq.internal.ops.ScriptKey.PRIORITY_DUE;
import static dev.delayq.internal.ops.ScriptKey.SCHEDULES;

import dev.delayq.DelayQException;
import dev.delayq.Schedule;
import dev.delayq.internal.Keys;
import dev.delayq.internal.base.ScriptLimits;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * {@code schedule.lua} (change a schedule and enqueue its ticks, compare-and-set) and {@code schedule_read.lua}, with the
 * stored form of a schedule: one hash field per schedule whose value is its definition and its next and last tick,
 * fields separated by NUL, the payload last (so it may hold anything):
 * {@code 1 | c(ron)/e(very) | expression or interval ms | zone | S/O/A | max attempts | no overlap 0/1 | start ms |
 * end ms | next tick ms | last tick ms | payload} (empty = absent). The scripts treat it as opaque bytes: only the
 * client reads it, and a change is made only while the stored value is still the one the client read.
 *
 * <p>A paused schedule keeps that format (earlier versions read it): its record has no next tick (to them, nothing to
 * tick), and its name is in the paused schedules hash, which only these two scripts read; a change is compared against
 * the paused state read as against the record.
 */
public final class ScheduleOps {
    private static final int FIELDS = 12;

    private ScheduleOps() {
    }

    /**
     * A stored schedule: its definition, its next and last tick (-1: none), the exact stored bytes and whether it is
     * paused; a value that cannot be read has no schedule and says why in {@code problem} (it can still be removed: its
     * bytes are known).
     */
    public record Stored(String name, Schedule schedule, long next, long last, byte[] raw, String problem, boolean paused) {
        /** The schedule, or an exception naming it and how to repair it. */
        public Schedule readable() {
            if (schedule == null) {
                throw new DelayQException(problem);
            }
            return schedule;
        }
    }

    /** What the schedules read at once: Redis's time (ms) and the schedules. */
    public record Snapshot(long nowMillis, List<Stored> schedules) {
    }

    /** One tick job to enqueue. */
    public record Tick(String id, long dueMillis) {
    }

    /** How a change went. */
    public enum Outcome {
        /** Written. */
        DONE,
        /** The schedule changed since it was read: nothing written. */
        CHANGED_MEANWHILE,
        /** Not due yet on Redis's clock: nothing written. */
        NOT_YET,
        /** No overlap: the previous tick's job is still scheduled or running; nothing written. */
        PREVIOUS_RUNNING
    }

    /** The outcome and, when written, how many tick jobs were created (the others existed). */
    public record Result(Outcome outcome, int created) {
    }

    private static final ScriptKey[] WRITE_KEYS = {SCHEDULES, JOBS, DUE, META, HISTORY, PRIORITY_DUE, EVENTS, DEDUPE,
        DEDUPE_HOLDS, ScriptKey.RETRYING, PAUSED_SCHEDULES, ScriptKey.ERRORS};

    /** schedule.lua's ARGV, in order, before the tick jobs. */
    enum Arg {
        WAKE_CHANNEL, SCHEDULES_CHANNEL, SCHEDULE_NAME, BASED_ON, NEW_RECORD, NOT_BEFORE, DROP_ID, PREVIOUS_ID, PAUSED_BEFORE,
        PAUSED_AFTER, TICKS
    }

    /** The arguments of each tick job. */
    enum TickArg { ID, PAYLOAD, DUE, MAX_ATTEMPTS }

    /** schedule.lua's reply. */
    enum Out { CODE, CREATED }

    static final Protocol SCHEDULE = Protocol.of(Script.SCHEDULE, WRITE_KEYS, Arg.values(), TickArg.values(), Out.values(), null)
            .bound(Arg.TICKS, 0, ScriptLimits.MAX_CATCH_UP + 1).bound(Arg.PAUSED_BEFORE, 0, 1).bound(Arg.PAUSED_AFTER, 0, 1);

    /** schedule_read.lua's ARGV. */
    enum ReadArg { NAME }

    /** schedule_read.lua's reply: now, then each schedule's name and record. */
    enum ReadOut { NOW }

    /** The fields of each schedule in schedule_read.lua's reply. */
    enum ReadItem { NAME, RECORD, PAUSED }

    static final Protocol READ = Protocol.of(Script.SCHEDULE_READ, new ScriptKey[] {SCHEDULES, PAUSED_SCHEDULES}, ReadArg.values(), null,
            ReadOut.values(), ReadItem.values());
    private static final int ARGS = SCHEDULE.argCount();
    private static final int TICK = TickArg.values().length;

    /** Reads one schedule ({@code name}) or all of them ({@code null}), with Redis's time. */
    public static CompletableFuture<Snapshot> read(RedisBackend redis, Keys keys, String name) {
        return Reply.eval(redis, Script.SCHEDULE_READ, ScriptKey.of(READ.keys, keys), name == null ? Args.EMPTY : utf8(name))
                .thenApply(r -> {
                    List<Stored> out = new ArrayList<>();
                    int head = ReadOut.values().length;
                    int width = ReadItem.values().length;
                    for (int i = 0; head + width * (i + 1) <= r.size(); i++) {
                        String n = Reply.str(Reply.item(r, head, width, i, ReadItem.NAME));
                        byte[] raw = (byte[]) Reply.item(r, head, width, i, ReadItem.RECORD);
                        boolean paused = Reply.asLong(Reply.item(r, head, width, i, ReadItem.PAUSED)) != 0;
                        try {
                            out.add(decode(n, raw, paused));
                        } catch (DelayQException e) {
                            out.add(new Stored(n, null, -1, -1, raw, e.getMessage(), paused));
                        }
                    }
                    return new Snapshot(Reply.longAt(r, ReadOut.NOW), out);
                });
    }

    /**
     * Replaces the stored value {@code expected} (null: none) of schedule {@code name} by {@code next} (null: remove it),
     * enqueuing {@code ticks}, once Redis's clock reaches {@code notBefore} (0: at once); cancels {@code dropId} (when
     * still scheduled); refuses while job {@code overlapId} is scheduled or running. {@code pausedBefore} is the paused
     * state read (compared as {@code expected} is), {@code pausedAfter} the one to leave (false for a removal).
     */
    public static CompletableFuture<Result> write(RedisBackend redis, Keys keys, String name, byte[] expected, byte[] next,
                                                  long notBefore, String dropId, String overlapId, boolean pausedBefore,
                                                  boolean pausedAfter, Schedule s, List<Tick> ticks) {
        byte[][] k = ScriptKey.of(WRITE_KEYS, keys);
        byte[][] a = new byte[ARGS + TICK * ticks.size()][];
        a[Arg.WAKE_CHANNEL.ordinal()] = keys.wakeChannel();
        a[Arg.SCHEDULES_CHANNEL.ordinal()] = keys.schedulesChannel();
        a[Arg.SCHEDULE_NAME.ordinal()] = utf8(name);
        a[Arg.BASED_ON.ordinal()] = expected == null ? Args.EMPTY : expected;
        a[Arg.NEW_RECORD.ordinal()] = next == null ? Args.EMPTY : next;
        a[Arg.NOT_BEFORE.ordinal()] = num(notBefore);
        a[Arg.DROP_ID.ordinal()] = dropId == null ? Args.EMPTY : utf8(dropId);
        a[Arg.PREVIOUS_ID.ordinal()] = overlapId == null ? Args.EMPTY : utf8(overlapId);
        a[Arg.PAUSED_BEFORE.ordinal()] = num(pausedBefore ? 1 : 0);
        a[Arg.PAUSED_AFTER.ordinal()] = num(pausedAfter ? 1 : 0);
        a[Arg.TICKS.ordinal()] = num(ticks.size());
        byte[] payload = s == null ? Args.EMPTY : utf8(s.payload());
        byte[] max = s == null || s.maxAttempts() == 0 ? Args.EMPTY : num(s.maxAttempts());
        for (int i = 0; i < ticks.size(); i++) {
            int at = ARGS + TICK * i;
            a[at + TickArg.ID.ordinal()] = utf8(ticks.get(i).id());
            a[at + TickArg.PAYLOAD.ordinal()] = payload;
            a[at + TickArg.DUE.ordinal()] = num(ticks.get(i).dueMillis());
            a[at + TickArg.MAX_ATTEMPTS.ordinal()] = max;
        }
        return Reply.eval(redis, Script.SCHEDULE, k, a).thenApply(r -> switch ((int) Reply.longAt(r, Out.CODE)) {
            case 1 -> new Result(Outcome.DONE, (int) Reply.longAt(r, Out.CREATED));
            case 0 -> new Result(Outcome.NOT_YET, 0);
            case -3 -> new Result(Outcome.PREVIOUS_RUNNING, 0);
            default -> {
                if (Reply.code(r) == ReplyCode.CHANGED_MEANWHILE) {
                    yield new Result(Outcome.CHANGED_MEANWHILE, 0);
                }
                throw new DelayQException("unexpected schedule script reply " + r.get(0));
            }
        });
    }

    /** The stored form of {@code s} with its next and last tick (-1: none). */
    public static byte[] encode(Schedule s, long next, long last) {
        String sep = "\0";
        String text = "1" + sep + (s.cronExpression() != null ? "c" + sep + s.cronExpression() + sep + s.zone().getId()
                : "e" + sep + s.every().toMillis() + sep) + sep
                + s.missed().name().charAt(0) + sep + s.maxAttempts() + sep + (s.noOverlap() ? "1" : "0") + sep
                + opt(s.start()) + sep + opt(s.end()) + sep + (next >= 0 ? next : "") + sep + (last >= 0 ? last : "")
                + sep + s.payload();
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String opt(Instant t) {
        return t == null ? "" : Long.toString(t.toEpochMilli());
    }

    /** Decodes a stored schedule (not paused); a value that cannot be read is reported with the schedule's name. */
    public static Stored decode(String name, byte[] raw) {
        return decode(name, raw, false);
    }

    /** Decodes a stored schedule; a value that cannot be read is reported with the schedule's name. */
    public static Stored decode(String name, byte[] raw, boolean paused) {
        String[] f = new String(raw, StandardCharsets.UTF_8).split("\0", FIELDS);
        try {
            if (f.length != FIELDS || !f[0].equals("1")) {
                throw new IllegalArgumentException("unknown format");
            }
            Schedule s = f[1].equals("c") ? Schedule.cron(name, f[2], ZoneId.of(f[3]))
                    : Schedule.every(name, Duration.ofMillis(Long.parseLong(f[2])));
            s = s.missed(switch (f[4]) {
                case "O" -> Schedule.Missed.ONCE;
                case "A" -> Schedule.Missed.ALL;
                default -> Schedule.Missed.SKIP;
            }).maxAttempts(Integer.parseInt(f[5])).noOverlap(f[6].equals("1")).payload(f[11]);
            s = s.start(f[7].isEmpty() ? null : Instant.ofEpochMilli(Long.parseLong(f[7])));
            s = s.end(f[8].isEmpty() ? null : Instant.ofEpochMilli(Long.parseLong(f[8])));
            return new Stored(name, s, f[9].isEmpty() ? -1 : Long.parseLong(f[9]), f[10].isEmpty() ? -1 : Long.parseLong(f[10]),
                    raw, null, paused);
        } catch (RuntimeException e) {
            throw new DelayQException("stored schedule '" + name + "' cannot be read (" + e.getMessage()
                    + "): remove it and add it again");
        }
    }
}
