package dev.delayq.internal.ops;

import dev.delayq.WorkerInfo;
import dev.delayq.internal.Keys;
import dev.delayq.internal.WorkerBeat;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The queue's worker registry: {@code worker_beat.lua} (a heartbeat), {@code worker_gone.lua} (a graceful close) and
 * {@code workers.lua} (the live ones), on the queue's plain key set ({@link Keys#workers()}).
 *
 * <p>A worker's info is lines of text: the beat's time (Redis's clock, written by the script), the format
 * ({@value #FORMAT}), name, host, pid, queues (comma-separated), concurrency, uptime ms, version, then one line per
 * running job: its age in ms, a tab, its id. Job ids, queue names and worker names hold no control characters, so
 * neither a newline nor a tab can come from them.
 */
public final class Workers {
    /** The info layout's version: a reader skips an entry of a layout it does not know. */
    private static final String FORMAT = "1";
    /** Lines before the running jobs: beat, format, name, host, pid, queues, concurrency, uptime, version. */
    private static final int HEAD = 9;
    /** Most workers read per call. */
    private static final int MOST = 10_000;

    private static final ScriptKey[] KEYS = {ScriptKey.WORKERS, ScriptKey.WORKER_INFO};

    /** worker_beat.lua's ARGV. */
    enum BeatArg { WORKER_ID, TTL_MS, INFO }

    /** worker_beat.lua's reply. */
    enum BeatOut { CODE, NOW }

    /** worker_gone.lua's ARGV. */
    enum GoneArg { WORKER_ID }

    /** worker_gone.lua's reply. */
    enum GoneOut { REMOVED }

    /** workers.lua's ARGV. */
    enum LiveArg { MOST }

    /** workers.lua's reply: the time, then per live worker its id and info. */
    enum LiveOut { NOW }

    /** workers.lua's reply per worker. */
    enum LiveEach { ID, INFO }

    static final Protocol BEAT = Protocol.of(Script.WORKER_BEAT, KEYS, BeatArg.values(), BeatOut.values());
    static final Protocol GONE = Protocol.of(Script.WORKER_GONE, KEYS, GoneArg.values(), GoneOut.values());
    static final Protocol LIVE = Protocol.of(Script.WORKERS, KEYS, LiveArg.values(), null, LiveOut.values(), LiveEach.values());

    private Workers() {
    }

    private static byte[][] keys(Keys keys) {
        return ScriptKey.of(KEYS, keys);
    }

    /** Records {@code beat}, live for {@code ttlMillis} by Redis's clock; completes with Redis's time of the beat. */
    public static CompletableFuture<Long> beat(RedisBackend redis, Keys keys, WorkerBeat beat, long ttlMillis) {
        StringBuilder b = new StringBuilder(256 + beat.running().size() * 32).append(FORMAT).append('\n')
                .append(beat.name()).append('\n').append(beat.host()).append('\n').append(beat.pid()).append('\n')
                .append(String.join(",", beat.queues())).append('\n').append(beat.concurrency()).append('\n')
                .append(beat.uptimeMillis()).append('\n').append(beat.version());
        for (WorkerBeat.Run r : beat.running()) {
            b.append('\n').append(r.ageMillis()).append('\t').append(r.id());
        }
        return Reply.eval(redis, Script.WORKER_BEAT, keys(keys), Args.utf8(beat.id()), Args.num(ttlMillis),
                Args.utf8(b.toString())).thenApply(r -> Reply.longAt(r, BeatOut.NOW));
    }

    /** Removes the worker {@code id}; completes with whether it was registered. */
    public static CompletableFuture<Boolean> gone(RedisBackend redis, Keys keys, String id) {
        return Reply.eval(redis, Script.WORKER_GONE, keys(keys), Args.utf8(id)).thenApply(r -> Reply.longAt(r, GoneOut.REMOVED) == 1);
    }

    /** The live workers, soonest expiry first; an entry that cannot be read is left out. */
    public static CompletableFuture<List<WorkerInfo>> live(RedisBackend redis, Keys keys) {
        return Reply.eval(redis, Script.WORKERS, keys(keys), Args.num(MOST)).thenApply(r -> {
            int head = LiveOut.values().length;
            int each = LiveEach.values().length;
            List<WorkerInfo> out = new ArrayList<>((r.size() - head) / each);
            for (int i = head; i + each - 1 < r.size(); i += each) {
                WorkerInfo w = decode(Reply.str(r.get(i + LiveEach.ID.ordinal())), Reply.str(r.get(i + LiveEach.INFO.ordinal())));
                if (w != null) {
                    out.add(w);
                }
            }
            return out;
        });
    }

    /** One entry, or {@code null} when it is not of a layout this version reads. */
    static WorkerInfo decode(String id, String info) {
        String[] l = info.split("\n", -1);
        if (l.length < HEAD || !FORMAT.equals(l[1])) {
            return null;
        }
        try {
            long beat = Long.parseLong(l[0]);
            List<WorkerInfo.RunningJob> running = new ArrayList<>(l.length - HEAD);
            for (int i = HEAD; i < l.length; i++) {
                int tab = l[i].indexOf('\t');
                running.add(new WorkerInfo.RunningJob(l[i].substring(tab + 1),
                        Instant.ofEpochMilli(beat - Long.parseLong(l[i].substring(0, tab)))));
            }
            List<String> queues = l[5].isEmpty() ? List.of() : Arrays.asList(l[5].split(","));
            return new WorkerInfo(id, l[2], l[3], Long.parseLong(l[4]), queues, Integer.parseInt(l[6]), running,
                    Instant.ofEpochMilli(beat - Long.parseLong(l[7])), Instant.ofEpochMilli(beat), l[8]);
        } catch (RuntimeException e) {
            return null; // written by something else than a delayq worker: not one of ours to show
        }
    }
}
