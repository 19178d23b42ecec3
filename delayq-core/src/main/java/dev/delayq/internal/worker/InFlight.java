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

    private static long key(Running r) {
        return r.token() * dev.delayq.Bounds.MAX_PARTITIONS + r.job.partition();
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
