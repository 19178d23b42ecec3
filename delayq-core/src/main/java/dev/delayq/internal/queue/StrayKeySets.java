package dev.delayq.internal.queue;

import dev.delayq.Bounds;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Jobs under key sets of a queue that its recorded partition count does not cover (the plain {@code {q}} set of a
 * partitioned queue, or {@code {q#i}} sets beyond its count): nothing claims or lists them. They can only come from
 * clients that disagreed on the count before it was recorded, or from a count changed by hand; check reports them.
 */
final class StrayKeySets {
    private StrayKeySets() {
    }

    /** One problem line per stray key set that holds jobs. */
    static List<String> find(RedisBackend redis, String prefix, String name, int partitions) {
        Keys plain = new Keys(prefix, name);
        List<Keys> others = new ArrayList<>();
        if (partitions > 1) {
            others.add(plain);
        }
        for (int i = partitions > 1 ? partitions : 0; i < Bounds.MAX_PARTITIONS; i++) {
            others.add(plain.partition(i));
        }
        List<CompletableFuture<Boolean>> probes = new ArrayList<>(others.size());
        for (Keys k : others) {
            probes.add(redis.exists(k.jobs()));
        }
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < others.size(); i++) {
            if (redis.await(probes.get(i), "check")) {
                problems.add("{" + others.get(i).queue() + "}: jobs under a key set that the recorded partition count ("
                        + partitions + ") does not cover: no worker claims them");
            }
        }
        return problems;
    }
}
