package dev.delayq.internal.queue;

import dev.delayq.Job;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * Where a job of a partitioned queue lives: the partition of its id, {@code crc32(id) mod P}; except that an id of the
 * exact form {@code <name>@<digits>} (a schedule's tick) lives in the partition of {@code <name>}, where its schedule is,
 * so that one script can advance the schedule and enqueue the tick (one hash slot). The same rule holds for every
 * lookup by id (get, cancel, delete, reschedule, retry) and for dedupe keys, so it is the same everywhere.
 */
final class Routing {
    private Routing() {
    }

    /** The partition of {@code key} (a job id or a dedupe key) among {@code partitions}. */
    static int partitionOf(String key, int partitions) {
        CRC32 crc = new CRC32();
        crc.update(routed(key).getBytes(StandardCharsets.UTF_8));
        return (int) (crc.getValue() % partitions);
    }

    /** {@code <name>} for {@code <name>@<digits>} (1 to 19 digits, a non-empty name), else the key itself. */
    static String routed(String key) {
        int at = key.lastIndexOf('@');
        if (at <= 0 || at == key.length() - 1 || key.length() - at - 1 > 19) {
            return key;
        }
        for (int i = at + 1; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c < '0' || c > '9') {
                return key;
            }
        }
        return key.substring(0, at);
    }

    /**
     * The id the job is stored under: its own, unless it has a dedupe key and a generated id, which then gets the
     * suffix that puts it in the dedupe key's partition.
     *
     * @throws IllegalArgumentException when the caller's id and dedupe key route to different partitions
     */
    static String storedId(Job job, int partitions, String name) {
        if (job.dedupeKey() == null) {
            return job.id();
        }
        int home = partitionOf(job.dedupeKey(), partitions);
        if (partitionOf(job.id(), partitions) == home) {
            return job.id();
        }
        if (!job.idGenerated()) {
            throw new IllegalArgumentException("job '" + job.id() + "' and its dedupe key '" + job.dedupeKey()
                    + "' belong to different partitions of queue '" + name + "' (" + partitionOf(job.id(), partitions) + " and " + home
                    + "): on a partitioned queue a job with a dedupe key needs an id of the same partition; leave the id out "
                    + "(one is generated there) or use ids without dedupe keys");
        }
        for (int n = 1; ; n++) {
            String candidate = job.id() + "~" + n;
            if (partitionOf(candidate, partitions) == home) {
                return candidate;
            }
        }
    }
}
