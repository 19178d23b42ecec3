package dev.delayq.internal.queue;

import dev.delayq.Bounds;
import dev.delayq.DelayQException;
import dev.delayq.internal.ClientLifecycle;
import dev.delayq.internal.ClientSettings;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import java.nio.charset.StandardCharsets;
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
    private final Map<String, RedisQueue> queues = new ConcurrentHashMap<>();
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
     * The queue {@code name} with {@code partitions} partitions (0: as recorded in Redis, else 1, which is then
     * recorded). Names and counts are validated by the caller.
     *
     * @throws IllegalArgumentException when the count differs from the one recorded for the queue
     */
    public RedisQueue queue(String name, int partitions) {
        RedisQueue q = queues.get(name);
        if (q == null) {
            // Resolved outside any lock (computeIfAbsent must not block on Redis); two threads that race both read the
            // same recorded count, and the first one's queue is kept.
            int count = recordedCount(name, partitions);
            Keys keys = new Keys(settings.prefix(), name);
            RedisQueue fresh = new RedisQueue(redis, settings, Partitions.open(redis, keys, settings, count, lifecycle));
            q = queues.putIfAbsent(name, fresh);
            if (q == null) {
                q = fresh;
            }
        }
        int actual = q.partitions().size();
        if (partitions > 0 && partitions != actual) {
            throw partitionMismatch(name, actual, partitions);
        }
        return q;
    }

    /**
     * The queue's partition count as recorded in Redis, recording {@code asked} (or 1 when 0) if none is: the first
     * client to use a queue fixes its count, so producers and workers can never disagree.
     */
    private int recordedCount(String name, int asked) {
        byte[] config = new Keys(settings.prefix(), name).config();
        int want = asked > 0 ? asked : 1;
        // Read first: opening a queue that has its count (the usual case) writes nothing, so it works on a full Redis.
        String recorded = redis.hget(config, "partitions");
        if (recorded == null) {
            if (redis.hsetnx(config, "partitions", Integer.toString(want))) {
                return want;
            }
            recorded = redis.hget(config, "partitions"); // someone recorded it meanwhile
        }
        int count;
        try {
            count = recorded == null ? -1 : Integer.parseInt(recorded);
        } catch (NumberFormatException e) {
            count = -1;
        }
        if (count < 1 || count > Bounds.MAX_PARTITIONS) {
            throw new DelayQException("queue '" + name + "': the partition count recorded in Redis ("
                    + new String(config, StandardCharsets.UTF_8) + ", field partitions) is '" + recorded
                    + "', not a number from 1 to " + Bounds.MAX_PARTITIONS + ": something other than delayq wrote it; set it "
                    + "back to the queue's count (1 unless it was created with partitions)");
        }
        if (asked > 0 && count != asked) {
            throw partitionMismatch(name, count, asked);
        }
        return count;
    }

    private static IllegalArgumentException partitionMismatch(String name, int actual, int asked) {
        return new IllegalArgumentException("queue '" + name + "' has " + actual + " partition(s); asked for " + asked
                + ": a queue's partition count cannot change (drain it and use a new queue name)");
    }

    /**
     * Records {@code name} in the prefix's registry and waits for Redis to answer (an enqueue records its queue in the
     * background, {@code Registration}: a created queue must be listed when the call returns).
     */
    public void register(String name) {
        redis.await(redis.sadd(Keys.registry(settings.prefix()), name.getBytes(StandardCharsets.UTF_8)), "register queue");
    }

    /** The names of the queues that have had jobs enqueued under the prefix, sorted. */
    public List<String> names() {
        List<String> names = redis.await(redis.smembersUtf8(Keys.registry(settings.prefix())), "queues");
        names.sort(null);
        return names;
    }
}
