package dev.delayq.internal.queue;

import dev.delayq.DelayQException;
import dev.delayq.JobInfo;
import dev.delayq.JobState;
import dev.delayq.Schedule;
import dev.delayq.ScheduleInfo;
import dev.delayq.Schedules;
import dev.delayq.internal.ScheduleTimes;
import dev.delayq.internal.base.Validation;
import dev.delayq.internal.ops.ScheduleOps;
import dev.delayq.internal.ops.ScheduleOps.Outcome;
import dev.delayq.internal.ops.ScheduleOps.Result;
import dev.delayq.internal.ops.ScheduleOps.Snapshot;
import dev.delayq.internal.ops.ScheduleOps.Stored;
import dev.delayq.internal.ops.ScheduleOps.Tick;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A queue's schedules. The client computes tick times (cron needs Java) from what it read, and every write is the
 * compare-and-set of {@code schedule.lua} against exactly that read, so concurrent writers never both advance a
 * schedule: the loser re-reads. On a partitioned queue a schedule and its tick jobs live in partition
 * {@code crc32(name) mod P} (see {@link Routing}).
 */
public final class QueueSchedules implements Schedules {
    /** Compare-and-set attempts of one upsert or removal racing other writers. */
    private static final int ATTEMPTS = 20;
    /**
     * How soon a schedule waiting for its previous tick's job to end (no overlap) is looked at again, at the latest: it
     * is also looked at when its next tick falls due.
     */
    static final long OVERLAP_POLL_MS = 1000;
    /**
     * How late a no-overlap tick whose previous run had ended by the tick's time may still be enqueued under
     * {@code SKIP}: a ticker waiting for that run looks again at the next tick's time, and after a notice or a poll,
     * so it comes within this of the tick; a tick found later than this was missed by every ticker (none ran), which
     * is what {@code SKIP} drops.
     */
    static final long OVERLAP_LATE_MS = 2 * OVERLAP_POLL_MS;

    private final String queue;
    private final List<Partition> parts;

    QueueSchedules(String queue, List<Partition> parts) {
        this.queue = queue;
        this.parts = parts;
    }

    private Partition home(String name) {
        Validation.scheduleName(name);
        return parts.size() == 1 ? parts.get(0) : parts.get(Routing.partitionOf(name, parts.size()));
    }

    @Override
    public boolean upsert(Schedule s) {
        if (s == null) {
            throw new IllegalArgumentException("schedule must not be null: use Schedule.cron(...) or Schedule.every(...)");
        }
        Partition home = home(s.name());
        new Registration(home.backend(), home.keys().prefix(), queue).ensure();
        for (int i = 0; i < ATTEMPTS; i++) {
            Snapshot snap = home.backend().await(ScheduleOps.read(home.backend(), home.keys(), s.name()), "schedule upsert");
            Stored cur = snap.schedules().isEmpty() ? null : snap.schedules().get(0);
            long now = snap.nowMillis();
            if (cur != null && s.equals(cur.schedule())) {
                // Unchanged (an application upserting its schedules at start-up): its state stays as it is, so the ticks
                // it missed while nothing ticked are caught up as its policy says at the next tick.
                return false;
            }
            // A stored value that cannot be read is replaced whole (its next tick, unknown, is not cancelled).
            String drop = null;
            long first;
            long last;
            List<Tick> ticks;
            boolean paused = cur != null && cur.paused();
            if (paused) {
                // Paused: the new definition is stored, still paused and without a tick (resume makes the next one).
                first = -1;
                last = cur.last();
                ticks = List.of();
            } else if (cur != null && cur.next() >= 0 && cur.next() <= now) {
                // Its tick is due (its job enqueued, maybe running or run): changed, the schedule keeps that tick as its
                // next, and the next advance applies the new definition and its missed-tick policy to the ticks after it.
                first = cur.next();
                last = cur.last();
                ticks = List.of();
            } else {
                if (cur != null && cur.next() >= 0) {
                    drop = tickId(s.name(), cur.next()); // pending and not due: replaced (the same id again if the same time)
                }
                first = ScheduleTimes.next(s, now);
                last = cur != null ? cur.last() : -1;
                ticks = first >= 0 ? List.of(new Tick(tickId(s.name(), first), first)) : List.of();
            }
            Result r = home.backend().await(ScheduleOps.write(home.backend(), home.keys(), s.name(), cur == null ? null : cur.raw(),
                    ScheduleOps.encode(s, first, last), 0, drop, null, paused, paused, s, ticks), "schedule upsert");
            if (r.outcome() == Outcome.DONE) {
                return cur == null;
            }
        }
        throw new DelayQException("schedule '" + s.name() + "' of queue '" + queue + "' kept changing while it was written ("
                + ATTEMPTS + " attempts): try again");
    }

    @Override
    public boolean remove(String name) {
        Partition home = home(name);
        for (int i = 0; i < ATTEMPTS; i++) {
            Snapshot snap = home.backend().await(ScheduleOps.read(home.backend(), home.keys(), name), "schedule remove");
            if (snap.schedules().isEmpty()) {
                return false;
            }
            Stored cur = snap.schedules().get(0);
            Result r = home.backend().await(ScheduleOps.write(home.backend(), home.keys(), name, cur.raw(), null, 0,
                    cur.next() >= 0 ? tickId(name, cur.next()) : null, null, cur.paused(), false, null, List.of()),
                    "schedule remove");
            if (r.outcome() == Outcome.DONE) {
                return true;
            }
        }
        throw new DelayQException("schedule '" + name + "' of queue '" + queue + "' kept changing while it was removed: try again");
    }

    @Override
    public boolean pause(String name) {
        Partition home = home(name);
        for (int i = 0; i < ATTEMPTS; i++) {
            Snapshot snap = home.backend().await(ScheduleOps.read(home.backend(), home.keys(), name), "schedule pause");
            if (snap.schedules().isEmpty()) {
                return false;
            }
            Stored cur = snap.schedules().get(0);
            if (cur.paused()) {
                return true;
            }
            // No next tick in the record (earlier versions read that as nothing to tick) and the pending tick cancelled
            // while still scheduled: a paused schedule makes no job at all; a tick already running finishes.
            Result r = home.backend().await(ScheduleOps.write(home.backend(), home.keys(), name, cur.raw(),
                    ScheduleOps.encode(cur.readable(), -1, cur.last()), 0, cur.next() >= 0 ? tickId(name, cur.next()) : null,
                    null, false, true, null, List.of()), "schedule pause");
            if (r.outcome() == Outcome.DONE) {
                return true;
            }
        }
        throw new DelayQException("schedule '" + name + "' of queue '" + queue + "' kept changing while it was paused: try again");
    }

    @Override
    public boolean resume(String name) {
        Partition home = home(name);
        for (int i = 0; i < ATTEMPTS; i++) {
            Snapshot snap = home.backend().await(ScheduleOps.read(home.backend(), home.keys(), name), "schedule resume");
            if (snap.schedules().isEmpty()) {
                return false;
            }
            Stored cur = snap.schedules().get(0);
            if (!cur.paused()) {
                return true;
            }
            // The ticks that passed while paused are skipped, whatever the missed-tick policy: the next is the first after
            // now (and not before the start; none past the end).
            Schedule s = cur.readable();
            long first = ScheduleTimes.next(s, snap.nowMillis());
            List<Tick> ticks = first >= 0 ? List.of(new Tick(tickId(name, first), first)) : List.of();
            String drop = cur.next() >= 0 ? tickId(name, cur.next()) : null; // a tick an earlier version made meanwhile
            Result r = home.backend().await(ScheduleOps.write(home.backend(), home.keys(), name, cur.raw(),
                    ScheduleOps.encode(s, first, cur.last()), 0, drop, null, true, false, s, ticks), "schedule resume");
            if (r.outcome() == Outcome.DONE) {
                return true;
            }
        }
        throw new DelayQException("schedule '" + name + "' of queue '" + queue + "' kept changing while it was resumed: try again");
    }

    @Override
    public List<ScheduleInfo> list() {
        List<ScheduleInfo> out = new ArrayList<>();
        for (Partition p : parts) {
            p.backend().await(ScheduleOps.read(p.backend(), p.keys(), null), "schedule list").schedules()
                    .forEach(st -> out.add(info(st))); // a value that cannot be read fails the listing, naming it
        }
        out.sort(Comparator.comparing(i -> i.schedule().name()));
        return out;
    }

    @Override
    public Optional<ScheduleInfo> get(String name) {
        Partition home = home(name);
        Snapshot snap = home.backend().await(ScheduleOps.read(home.backend(), home.keys(), name), "schedule get");
        return snap.schedules().stream().findFirst().map(QueueSchedules::info);
    }

    @Override
    public int tick() {
        int created = 0;
        for (Partition p : parts) {
            created += tick(p).created();
        }
        return created;
    }

    /**
     * What one pass over a key set's schedules did: tick jobs created, Redis's time at the read, and when (Redis ms) a
     * schedule next needs a pass (Long.MAX_VALUE: none).
     */
    public record Pass(int created, long nowMillis, long wakeAtMillis) {
    }

    /** Advances every due schedule of one key set (a queue, or one partition); used by workers' tickers. */
    public static Pass tick(Partition part) {
        Snapshot snap = part.backend().await(ScheduleOps.read(part.backend(), part.keys(), null), "schedule tick");
        int created = 0;
        long wake = Long.MAX_VALUE;
        for (Stored st : snap.schedules()) {
            long now = snap.nowMillis();
            if (st.schedule() == null || st.next() < 0 || st.paused()) {
                continue; // ended, paused, or a value that cannot be read (list and get name it; upsert or remove repair it)
            }
            if (st.next() > now) {
                wake = Math.min(wake, st.next());
                continue;
            }
            Result r = advance(part, st, now);
            created += r.created();
            wake = Math.min(wake, switch (r.outcome()) {
                // Look again when the next tick falls due (taken then if the run has ended by then), or after the poll.
                case PREVIOUS_RUNNING -> nextLook(st.schedule(), now);
                case DONE -> now; // look at the new state on the next pass (it is normally in the future)
                default -> now;   // changed meanwhile (another worker advanced it) or a clock step: read again
            });
        }
        return new Pass(created, snap.nowMillis(), wake);
    }

    /**
     * One advance of a due schedule: catch-up ticks as its missed-tick policy says, and the next future tick. A schedule
     * without overlap first waits for its previous tick's job to end (read here, and checked again by the script, which
     * writes only if it has): the ticks that passed while that job ran count as missed, and a tick that came after the
     * job had ended is not missed, however its ticker learnt of the end (see {@link #OVERLAP_LATE_MS}).
     */
    private static Result advance(Partition part, Stored st, long now) {
        Schedule s = st.schedule();
        long due = st.next();
        long runEnded = Long.MIN_VALUE; // when the previous tick's job ended (MIN_VALUE: long ago, or not known)
        if (s.noOverlap()) {
            Optional<JobInfo> previous = part.get(tickId(s.name(), due));
            if (previous.isPresent()) {
                JobState state = previous.get().state();
                if (state == JobState.SCHEDULED || state == JobState.PROCESSING) {
                    return new Result(Outcome.PREVIOUS_RUNNING, 0);
                }
                runEnded = previous.get().finishedAtMillis() > 0 ? previous.get().finishedAtMillis() : Long.MIN_VALUE;
            }
        }
        List<Long> missed = switch (s.missed()) {
            case SKIP -> s.noOverlap() ? tickAfterTheRun(s, due, runEnded, now) : List.of();
            case ONCE -> ScheduleTimes.between(s, due, now, 1);
            case ALL -> ScheduleTimes.between(s, due, now, Schedule.MAX_CATCH_UP);
        };
        long future = ScheduleTimes.next(s, now);
        List<Long> times = new ArrayList<>();
        long next;
        long last;
        if (s.noOverlap() && !missed.isEmpty()) {
            times.add(missed.get(0)); // one at a time: the next waits for this one's job to end
            next = missed.get(0);
            last = due;
        } else {
            times.addAll(missed);
            if (future >= 0) {
                times.add(future);
            }
            next = future;
            last = missed.isEmpty() ? due : missed.get(missed.size() - 1);
        }
        List<Tick> ticks = new ArrayList<>(times.size());
        times.forEach(t -> ticks.add(new Tick(tickId(s.name(), t), t)));
        return part.backend().await(ScheduleOps.write(part.backend(), part.keys(), s.name(), st.raw(),
                ScheduleOps.encode(s, next, last), due, null, s.noOverlap() ? tickId(s.name(), due) : null, false, false, s,
                ticks),
                "schedule tick");
    }

    /** When to look again at a schedule waiting for its previous tick's job: its next tick, or after the poll. */
    private static long nextLook(Schedule s, long now) {
        long nextTick = ScheduleTimes.next(s, now);
        return nextTick >= 0 ? Math.min(now + OVERLAP_POLL_MS, nextTick) : now + OVERLAP_POLL_MS;
    }

    /**
     * The first tick after {@code due} that came once the previous run had ended ({@code runEnded}), when it has come
     * and is at most {@link #OVERLAP_LATE_MS} late: it was not missed, so {@code SKIP} does not drop it.
     */
    private static List<Long> tickAfterTheRun(Schedule s, long due, long runEnded, long now) {
        long t = ScheduleTimes.next(s, runEnded == Long.MIN_VALUE ? due : Math.max(due, runEnded - 1));
        return t >= 0 && t <= now && now - t <= OVERLAP_LATE_MS ? List.of(t) : List.of();
    }

    private static String tickId(String name, long tickMillis) {
        return name + "@" + tickMillis;
    }

    private static ScheduleInfo info(Stored st) {
        return new ScheduleInfo(st.readable(), st.next() >= 0 && !st.paused() ? Instant.ofEpochMilli(st.next()) : null,
                st.last() >= 0 ? Instant.ofEpochMilli(st.last()) : null, st.paused());
    }
}
