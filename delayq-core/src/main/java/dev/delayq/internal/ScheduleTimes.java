package dev.delayq.internal;

import dev.delayq.internal.base.Crons;
import com.cronutils.model.Cron;
import com.cronutils.model.time.ExecutionTime;
import dev.delayq.Schedule;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.zone.ZoneOffsetTransition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * The tick times of a schedule, in epoch ms. Cron expressions are parsed and matched by cron-utils on the zone's
 * <em>wall clock</em> (a {@link LocalDateTime}, matched as if in UTC, where no hour is skipped or repeated); each matching
 * wall-clock time is then placed on the time line by our own rule, so daylight saving is decided here, in one place:
 * <ul>
 *   <li>a wall-clock time in a gap (the skipped hour of spring) ticks at the transition instant; ticks meeting there
 *       are one tick (ticks are strictly increasing instants);</li>
 *   <li>a wall-clock time in an overlap (the repeated hour of autumn) ticks at its first instant only: from an instant
 *       in the second pass, both searches start at the end of the repeated hour on the wall clock, as its wall-clock
 *       times were all visited in the first pass (the next tick is the first match from the overlap's end on, the
 *       previous one the last match before it, placed in the first pass).</li>
 * </ul>
 * {@code every} schedules tick at {@code start + k * every} (start defaults to the epoch), with no zone.
 */
public final class ScheduleTimes {
    /** Wall-clock matches tried per call before giving up (a cron that never matches, e.g. Feb 30). */
    private static final int MAX_STEPS = 10_000;

    private ScheduleTimes() {
    }

    /** Parses a cron expression of 5 or 6 fields ({@link Crons#parse}). */
    public static Cron parse(String expression) {
        return Crons.parse(expression);
    }

    /** The first tick of {@code s} strictly after {@code afterMs}, or -1 when there is none (past its end). */
    public static long next(Schedule s, long afterMs) {
        long start = s.start() != null ? s.start().toEpochMilli() : Long.MIN_VALUE;
        long t;
        if (s.every() != null) {
            long every = s.every().toMillis();
            long anchor = s.start() != null ? start : 0;
            t = afterMs < anchor ? anchor : anchor + (Math.floorDiv(afterMs - anchor, every) + 1) * every;
        } else {
            t = nextCron(s, start != Long.MIN_VALUE ? Math.max(afterMs, start - 1) : afterMs);
        }
        return t < 0 || (s.end() != null && t > s.end().toEpochMilli()) ? -1 : t;
    }

    /**
     * The ticks in {@code (afterMs, uptoMs]}, oldest first: the latest {@code max} of them (missed ticks to catch up).
     */
    public static List<Long> between(Schedule s, long afterMs, long uptoMs, int max) {
        List<Long> out = new ArrayList<>();
        long before = uptoMs + 1;
        while (out.size() < max) {
            long t = previous(s, before);
            if (t <= afterMs) {
                break;
            }
            out.add(t);
            before = t;
        }
        Collections.reverse(out);
        out.removeIf(t -> s.end() != null && t > s.end().toEpochMilli());
        return out;
    }

    /** The latest tick strictly before {@code beforeMs}, or {@link Long#MIN_VALUE} when there is none. */
    static long previous(Schedule s, long beforeMs) {
        long start = s.start() != null ? s.start().toEpochMilli() : Long.MIN_VALUE;
        long t;
        if (s.every() != null) {
            long every = s.every().toMillis();
            long anchor = s.start() != null ? start : 0;
            t = beforeMs <= anchor ? Long.MIN_VALUE : anchor + Math.floorDiv(beforeMs - 1 - anchor, every) * every;
        } else {
            t = previousCron(s, beforeMs);
        }
        return t < start ? Long.MIN_VALUE : t;
    }

    private static long nextCron(Schedule s, long afterMs) {
        ZoneId zone = s.zone();
        ExecutionTime ex = ExecutionTime.forCron(parse(s.cronExpression()));
        ZonedDateTime at = Instant.ofEpochMilli(afterMs).atZone(zone);
        LocalDateTime wall = at.toLocalDateTime();
        ZoneOffsetTransition tr = zone.getRules().getTransition(wall);
        if (tr != null && tr.isOverlap() && at.getOffset().equals(tr.getOffsetAfter())) {
            // In the repeated hour's second pass: its wall-clock times ticked in the first pass. The search below is
            // strictly after, in whole seconds: start one second before the overlap's end (03:00 in Berlin), so that
            // a match at the end itself is still found.
            wall = tr.getDateTimeBefore().minusSeconds(1);
        }
        for (int i = 0; i < MAX_STEPS; i++) {
            Optional<ZonedDateTime> m = ex.nextExecution(wall.atZone(ZoneOffset.UTC));
            if (m.isEmpty()) {
                return -1;
            }
            wall = m.get().toLocalDateTime();
            long t = instant(zone, wall);
            if (t > afterMs) {
                return t; // a match in the overlap's last second, when afterMs is in it, is earlier: go on
            }
        }
        return -1;
    }

    private static long previousCron(Schedule s, long beforeMs) {
        ZoneId zone = s.zone();
        ExecutionTime ex = ExecutionTime.forCron(parse(s.cronExpression()));
        ZonedDateTime at = Instant.ofEpochMilli(beforeMs).atZone(zone);
        LocalDateTime wall = at.toLocalDateTime();
        ZoneOffsetTransition tr = zone.getRules().getTransition(wall);
        if (tr != null && tr.isOverlap() && at.getOffset().equals(tr.getOffsetAfter())) {
            wall = tr.getDateTimeBefore(); // in the repeated hour's second pass: its wall-clock times were visited
        }
        for (int i = 0; i < MAX_STEPS; i++) {
            Optional<ZonedDateTime> m = ex.lastExecution(wall.atZone(ZoneOffset.UTC));
            if (m.isEmpty()) {
                return Long.MIN_VALUE;
            }
            wall = m.get().toLocalDateTime();
            long t = instant(zone, wall);
            if (t < beforeMs) {
                return t;
            }
        }
        return Long.MIN_VALUE;
    }

    /**
     * The instant a wall-clock time ticks at: the transition for a gap, the first pass for an overlap (never the second:
     * a search from the first pass must not find the repeated hour's second pass as a later tick).
     */
    private static long instant(ZoneId zone, LocalDateTime wall) {
        ZoneOffsetTransition tr = zone.getRules().getTransition(wall);
        if (tr == null) {
            return wall.atZone(zone).toInstant().toEpochMilli();
        }
        if (tr.isGap()) {
            return tr.getInstant().toEpochMilli();
        }
        return wall.toInstant(tr.getOffsetBefore()).toEpochMilli();
    }
}
