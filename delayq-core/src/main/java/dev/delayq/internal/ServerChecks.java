package dev.delayq.internal;

import dev.delayq.DelayQConfigurationException;
import dev.delayq.Durability;
import dev.delayq.internal.redis.RedisBackend;
import java.util.Optional;

/** What a client checks of the server when it connects, before any job is touched. */
public final class ServerChecks {
    private ServerChecks() {
    }

    /**
     * Refuses a server that cannot honour {@code durability} (WAITAOF needs 7.2+) or that evicts keys (an evicting
     * {@code maxmemory-policy} silently loses jobs) unless {@code allowEviction}.
     *
     * @throws DelayQConfigurationException naming the problem and the fix
     */
    public static void verify(RedisBackend redis, Durability durability, boolean allowEviction) {
        if (durability.localAof() > 0) {
            String version = redis.info("server").getOrDefault("redis_version", "0");
            String[] v = version.split("\\.");
            int major = Integer.parseInt(v[0]);
            int minor = v.length > 1 ? Integer.parseInt(v[1]) : 0;
            if (major < 7 || (major == 7 && minor < 2)) {
                throw new DelayQConfigurationException("Durability.localAof needs WAITAOF, Redis 7.2 or newer; "
                        + redis.server() + " runs " + version + ": use appendfsync always, or Durability.replicas");
            }
        }
        if (!allowEviction) {
            Optional<String> policy = redis.configGet("maxmemory-policy");
            if (policy.isPresent() && !policy.get().equals("noeviction")) {
                throw new DelayQConfigurationException("Redis at " + redis.server() + " has maxmemory-policy "
                        + policy.get() + ", which evicts keys and can silently lose jobs: set maxmemory-policy "
                        + "noeviction, or accept the risk with allowEvictingMemoryPolicy(true)");
            }
        }
    }
}
