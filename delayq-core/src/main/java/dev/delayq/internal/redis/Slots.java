package dev.delayq.internal.redis;

import io.lettuce.core.cluster.SlotHash;

/** Which keys one script call may take together: on a Redis Cluster those of one slot, elsewhere any. */
public final class Slots {
    private Slots() {
    }

    /**
     * The group {@code key} belongs to for a call on {@code redis}: its slot on a cluster (Lettuce's CRC16 of its hash
     * tag), else {@code redis} itself, one group for every key.
     */
    public static Object callGroup(RedisBackend redis, byte[] key) {
        return "cluster".equals(redis.mode()) ? SlotHash.getSlot(key) : redis;
    }
}
