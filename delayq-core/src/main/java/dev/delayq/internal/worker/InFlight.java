package dev.delayq.internal.worker;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The jobs this worker holds a lease on, from claim until Redis acknowledges them, keyed by partition and
 * fencing token (tokens are unique only within a partition).
 */
final class InFlight {
    private final ConcurrentHashMap<Long, Running> jobs = new ConcurrentHashMap<>();

    /**
     * The partition in the top 8 bits (fewer than {@link dev.delayq.Bounds#MAX_PARTITIONS} = 2^8), the token (below 2^53)
     * in the low bits. The order matters: a worker's tokens are mostly consecutive, and {@code Long.hashCode} keeps
     * their low bits apart. With the token shifted up (token * 256 + partition) 256 consecutive tokens hashed to
     * one bin of the map, which turned it into a tree: a claim of 100 jobs then added 100 entries to one bin.
     */
    private static long key(Running r) {
        return ((long) r.job.partition() << 56) | r.token();
    }

    void add(Running r) {
        jobs.put(key(r), r);
    }

    void remove(Running r) {
        jobs.remove(key(r), r);
    }

    int size() {
        return jobs.size();
    }

    boolean isEmpty() {
        return jobs.isEmpty();
    }

    /** Jobs whose lease is still held (neither lost nor handed back). */
    List<Running> held() {
        List<Running> out = new ArrayList<>(jobs.size());
        for (Running r : jobs.values()) {
            if (!r.lost && !r.released) {
                out.add(r);
            }
        }
        return out;
    }

    /** Every job, whatever its state. */
    List<Running> all() {
        return new ArrayList<>(jobs.values());
    }
}
