package dev.delayq.chaos;

import dev.delayq.JobListener.Outcome;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The side-effect sink of the worker processes ({@code delayq work --exec}): the exec command appends a {@code start}
 * line when it begins and an {@code effect} line (the job's side effect) when it ends, each naming the job, its fencing
 * token, the worker incarnation that ran it ({@code $CHAOS_WORKER}) and the times, read from {@code /proc/uptime}: one
 * clock for every process of the machine, read by a shell builtin (no process started), in 10 ms steps. The times
 * bound the command, which starts after the worker took the lease and ends before it sends the outcome, so a run's
 * interval here lies inside its handler's: an overlap seen here is a real one.
 *
 * <p>Lines are read as a list, not a set: a job run twice under one token shows as two lines. Every line must parse,
 * so that a changed format fails the scenario instead of emptying its checks.
 */
final class Sink {
    /** A run's command began. */
    record Start(String id, long token, String worker, long atMs) {
    }

    /** A run's side effect, written as its command ends. */
    record Effect(String id, long token, String worker, long startMs, long endMs) {
    }

    /**
     * How long before its worker was SIGKILLed a run may have written its side effect and still have its accepted
     * completion unlogged (see {@link #feed}): up to about 400 ms seen (a whole acknowledgement batch, lingering and
     * then in flight when the kill came).
     */
    static final long UNLOGGED_WINDOW_MS = 5_000;

    private final List<Start> starts;
    private final List<Effect> effects;

    private Sink(List<Start> starts, List<Effect> effects) {
        this.starts = starts;
        this.effects = effects;
    }

    /** The exec command writing to {@code sink}; {@code shellBefore} runs between the two lines (e.g. {@code sleep 0.2;}). */
    static String command(Path sink, String shellBefore) {
        return command(sink, shellBefore, "");
    }

    /**
     * As {@link #command(Path, String)}; {@code shellAfter} runs after the effect line, its status the command's (e.g.
     * {@code ; exit 100} to fail the run for good once its end is written).
     */
    static String command(Path sink, String shellBefore, String shellAfter) {
        String job = "\"$DELAYQ_JOB_ID\" \"$DELAYQ_TOKEN\" \"$CHAOS_WORKER\"";
        return "read s _ < /proc/uptime; printf 'start %s %s %s %s\\n' " + job + " \"$s\" >> '" + sink + "'; "
                + shellBefore
                + " read e _ < /proc/uptime; printf 'effect %s %s %s %s %s\\n' " + job + " \"$s\" \"$e\" >> '" + sink + "'"
                + shellAfter;
    }

    /**
     * The worker incarnations running a command now, read while the workers write: a start line without its effect
     * line yet (a line still being written is left out).
     */
    static Set<String> busyWorkers(Path sink) {
        String text;
        try {
            text = Files.readString(sink, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, Integer> open = new HashMap<>();
        for (String line : text.substring(0, text.lastIndexOf('\n') + 1).split("\n")) {
            String[] f = line.split(" ");
            if (f.length >= 4) {
                open.merge(f[3], f[0].equals("start") ? 1 : -1, Integer::sum);
            }
        }
        Set<String> busy = new LinkedHashSet<>();
        open.forEach((worker, n) -> {
            if (n > 0) {
                busy.add(worker);
            }
        });
        return busy;
    }

    /** Now on the sink's clock (ms since boot, from {@code /proc/uptime}). */
    static long nowMs() {
        try {
            return uptimeMs(Files.readString(Path.of("/proc/uptime"), StandardCharsets.US_ASCII).split(" ")[0]);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long uptimeMs(String seconds) {
        int dot = seconds.indexOf('.');
        if (dot < 0 || seconds.length() - dot != 3) {
            throw new IllegalArgumentException("not /proc/uptime's seconds with two decimals: " + seconds);
        }
        return Long.parseLong(seconds.substring(0, dot)) * 1000 + Long.parseLong(seconds.substring(dot + 1)) * 10;
    }

    /** Reads sink files; fails on any line that is not a start or an effect line. */
    static Sink read(Path... files) {
        List<Start> starts = new ArrayList<>();
        List<Effect> effects = new ArrayList<>();
        for (Path file : files) {
            String text;
            try {
                text = Files.readString(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            for (String line : text.split("\n")) {
                if (line.isEmpty()) {
                    continue;
                }
                String[] f = line.split(" ");
                try {
                    if (f.length == 5 && f[0].equals("start")) {
                        starts.add(new Start(f[1], Long.parseLong(f[2]), f[3], uptimeMs(f[4])));
                        continue;
                    }
                    if (f.length == 6 && f[0].equals("effect")) {
                        effects.add(new Effect(f[1], Long.parseLong(f[2]), f[3], uptimeMs(f[4]), uptimeMs(f[5])));
                        continue;
                    }
                } catch (IllegalArgumentException e) {
                    // reported below with the line
                }
                throw new AssertionError("sink " + file + ": a line that is neither a start nor an effect: '" + line + "'");
            }
        }
        return new Sink(starts, effects);
    }

    /** Every side effect, one per line (a job run twice under one token counts twice). */
    List<Effect> effects() {
        return effects;
    }

    /**
     * Gives the checker the runs of {@code workers}: one per command started (with its start, and its end when it
     * reached its side effect) or per outcome logged, joined by (id, token), and requires the checker to prove its
     * input ({@link Checker#requireEvidence}). A done job's completion goes unlogged when its worker is SIGKILLed
     * between Redis accepting it and the log line: such a job is excused when the run under its final token wrote its
     * side effect at most {@link #UNLOGGED_WINDOW_MS} before its worker incarnation was killed, and at most
     * {@code heldAtOnce} per killed incarnation (a worker cannot have more completions in flight than jobs it holds).
     */
    void feed(Checker checker, List<WorkerProcess> workers, int heldAtOnce) {
        Map<String, List<Start>> startsOf = new HashMap<>();
        Map<String, List<Effect>> effectsOf = new HashMap<>();
        Map<String, List<Outcome>> outcomesOf = new HashMap<>();
        Set<String> keys = new LinkedHashSet<>();
        starts.forEach(s -> startsOf.computeIfAbsent(key(s.id(), s.token()), k -> new ArrayList<>()).add(s));
        effects.forEach(e -> effectsOf.computeIfAbsent(key(e.id(), e.token()), k -> new ArrayList<>()).add(e));
        for (WorkerProcess w : workers) {
            for (Checker.Run r : w.outcomes()) {
                outcomesOf.computeIfAbsent(key(r.id(), r.token()), k -> new ArrayList<>()).add(r.outcome());
            }
        }
        keys.addAll(startsOf.keySet());
        keys.addAll(effectsOf.keySet());
        keys.addAll(outcomesOf.keySet());
        Map<String, Long> killedAt = new HashMap<>();
        workers.forEach(w -> killedAt.putAll(w.killedAtMs()));
        for (String key : keys) {
            List<Start> s = startsOf.getOrDefault(key, List.of());
            List<Effect> e = effectsOf.getOrDefault(key, List.of());
            List<Outcome> o = outcomesOf.getOrDefault(key, List.of());
            int space = key.lastIndexOf(' ');
            String id = key.substring(0, space);
            long token = Long.parseLong(key.substring(space + 1));
            // Normally one start, at most one effect and one outcome; more is a token run twice, which the checker
            // reports: the i-th of each make the i-th run.
            for (int i = 0; i < Math.max(s.size(), Math.max(e.size(), o.size())); i++) {
                long start = i < e.size() ? e.get(i).startMs() : i < s.size() ? s.get(i).atMs() : -1;
                long end = i < e.size() ? e.get(i).endMs() : -1;
                checker.run(new Checker.Run(id, token, start, end, i < o.size() ? o.get(i) : null));
            }
        }
        Map<String, Integer> excused = new HashMap<>();
        checker.requireEvidence((id, token) -> effectsOf.getOrDefault(key(id, token), List.of()).stream().anyMatch(e -> {
            Long killed = killedAt.get(e.worker());
            return killed != null && e.endMs() <= killed && killed - e.endMs() <= UNLOGGED_WINDOW_MS
                    && excused.merge(e.worker(), 1, Integer::sum) <= heldAtOnce;
        }));
    }

    private static String key(String id, long token) {
        return id + " " + token;
    }
}
