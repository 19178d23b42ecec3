package dev.delayq;

import java.time.Instant;
import java.util.List;

/**
 * A live worker of a queue, as its last heartbeat recorded it ({@link QueueInspector#workers()}). Every worker beats
 * every 10 s by default ({@link Worker.Builder#heartbeatInterval}); a worker that stops without closing (killed, frozen,
 * cut off from Redis) drops out when three beat intervals pass without a beat, one that closes drops out at once.
 *
 * @param id          the worker's entry in the registry: its name and a random suffix (two workers may share a name)
 * @param name        the worker's name ({@link Worker#name()})
 * @param host        the host it runs on
 * @param pid         its process id
 * @param queues      the queues it works on
 * @param concurrency most handlers it runs at once
 * @param running     the jobs its handlers run now, with when each started (at most 1,000 listed)
 * @param startedAt   when it started
 * @param lastBeat    when it last beat (Redis's clock)
 * @param version     the delayq version it runs ({@code unknown} when not recorded)
 */
public record WorkerInfo(String id, String name, String host, long pid, List<String> queues, int concurrency,
                         List<RunningJob> running, Instant startedAt, Instant lastBeat, String version) {
    /** Copies the lists. */
    public WorkerInfo {
        queues = List.copyOf(queues);
        running = List.copyOf(running);
    }

    /**
     * A job a worker's handler runs.
     *
     * @param id        the job's id
     * @param startedAt when its handler started it (as of the worker's last beat, to within the beat's travel time)
     */
    public record RunningJob(String id, Instant startedAt) {
    }
}
