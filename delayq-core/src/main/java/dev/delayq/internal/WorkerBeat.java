package dev.delayq.internal;

import java.util.List;

/**
 * What one heartbeat of a worker says about it, as the worker knows it: times as ages on its own monotonic clock, so
 * the registry turns them into instants with Redis's clock at the beat (ops.Workers packs it, workers.lua reads it).
 *
 * @param id           the worker's entry in the registry
 * @param name         the worker's name
 * @param host         its host name
 * @param pid          its process id
 * @param queues       the queues it works on
 * @param concurrency  most handlers at once
 * @param uptimeMillis how long ago it started
 * @param version      the delayq version it runs
 * @param running      the jobs its handlers run
 */
public record WorkerBeat(String id, String name, String host, long pid, List<String> queues, int concurrency,
                         long uptimeMillis, String version, List<Run> running) {
    /**
     * One job a handler runs.
     *
     * @param id         the job's id
     * @param ageMillis  how long ago its handler started it
     */
    public record Run(String id, long ageMillis) {
    }
}
