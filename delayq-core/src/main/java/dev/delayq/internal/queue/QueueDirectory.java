package dev.delayq.internal.queue;

import dev.delayq.JobQueue;
import dev.delayq.internal.ClientLifecycle;
import dev.delayq.internal.ClientSettings;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The queues of one client: opened once per name (a plain queue or a partitioned one, as recorded in Redis) and
 * the registry of queue names under the prefix.
 */
public final class QueueDirectory {
    private final RedisBackend redis;
    private final ClientSettings settings;
    private final Map<String, JobQueue> queues = new ConcurrentHashMap<>();
    private final ClientLifecycle lifecycle = new ClientLifecycle();

    public QueueDirectory(RedisBackend redis, ClientSettings settings) {
        this.redis = redis;
        this.settings = settings;
    }

    /** Where the workers of these queues register, so that closing the client closes them first. */
    public ClientLifecycle lifecycle() {
        return lifecycle;
    }

    /**
     * The queue {@code name} with {@code partitions} partitions (0: as recorded in Redis, else 1). Names and counts are
     * validated by the caller.
     *
     * @throws IllegalArgumentException when the count differs from the one recorded for the queue
     */
    public JobQueue queue(String name, int partitions) {
        JobQueue q = queues.computeIfAbsent(name, n -> open(n, partitions));
        int actual = q instanceof PartitionedQueue pq ? pq.partitions().size() : 1;
        if (partitions > 0 && partitions != actual) {
            throw partitionMismatch(name, actual, partitions);
        }
        return q;
    }

    private JobQueue open(String name, int partitions) {
        Keys keys = new Keys(settings.prefix(), name);
        String recorded = redis.hget(keys.config(), "partitions");
        int count;
        if (partitions == 0) {
            count = recorded == null ? 1 : Integer.parseInt(recorded);
        } else {
            if (recorded == null && !redis.hsetnx(keys.config(), "partitions", Integer.toString(partitions))) {
                recorded = redis.hget(keys.config(), "partitions"); // someone recorded it meanwhile
            }
            if (recorded != null && Integer.parseInt(recorded) != partitions) {
                throw partitionMismatch(name, Integer.parseInt(recorded), partitions);
            }
            count = partitions;
        }
        return count == 1 ? new SingleQueue(redis, keys, settings, lifecycle)
                : new PartitionedQueue(redis, keys, settings, count, lifecycle);
    }

    private static IllegalArgumentException partitionMismatch(String name, int actual, int asked) {
        return new IllegalArgumentException("queue '" + name + "' has " + actual + " partition(s); asked for " + asked
                + ": a queue's partition count cannot change (drain it and use a new queue name)");
    }

    /** The names of the queues that have had jobs enqueued under the prefix, sorted. */
    public List<String> names() {
        List<String> names = redis.await(redis.smembersUtf8(Keys.registry(settings.prefix())), "queues");
        names.sort(null);
        return names;
    }
}
