package dev.delayq.internal.ops;

import dev.delayq.GroupStats;
import dev.delayq.Limits;
import dev.delayq.internal.Keys;
import dev.delayq.internal.redis.RedisBackend;
import dev.delayq.internal.redis.Script;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * {@code group_stats.lua}: one partition's groups (lua/includes/groups.lua) ranked by backlog; and the group limits,
 * written by {@code settings.lua} ({@link Settings#groupLimits}).
 */
public final class GroupOps {
    private static final ScriptKey[] KEYS = {ScriptKey.DUE, ScriptKey.META};

    /** ARGV. */
    enum Arg { TOP, MOST_GROUPS }

    /** The reply's fixed fields. */
    enum Out { GROUPS, READ, DEFAULT_CONCURRENCY, DEFAULT_RATE_N, DEFAULT_RATE_MS }

    /** Each group's fields. */
    enum Each { GROUP, SCHEDULED, RUNNING, CONCURRENCY, RATE_N, RATE_MS, WEIGHT }

    static final Protocol STATS = Protocol.of(Script.GROUP_STATS, KEYS, Arg.values(), null, Out.values(), Each.values())
            .bound(Arg.TOP, 1, 10_000).bound(Arg.MOST_GROUPS, 1, 100_000);
    private static final int HEAD = Out.values().length;
    private static final int WIDTH = Each.values().length;

    private GroupOps() {
    }

    /** The partition's groups: the {@code top} with the largest backlogs, ranked among at most {@code most}. */
    public static CompletableFuture<GroupStats> stats(RedisBackend redis, Keys keys, int top, int most) {
        byte[][] a = new byte[Arg.values().length][];
        a[Arg.TOP.ordinal()] = Args.num(top);
        a[Arg.MOST_GROUPS.ordinal()] = Args.num(most);
        return Reply.eval(redis, Script.GROUP_STATS, ScriptKey.of(KEYS, keys), a).thenApply(GroupOps::decode);
    }

    private static GroupStats decode(List<Object> r) {
        Limits defaults = limits(Reply.longAt(r, Out.DEFAULT_CONCURRENCY), Reply.longAt(r, Out.DEFAULT_RATE_N),
                Reply.longAt(r, Out.DEFAULT_RATE_MS));
        List<GroupStats.Group> top = new ArrayList<>();
        for (int i = 0; HEAD + (i + 1) * WIDTH <= r.size(); i++) {
            top.add(new GroupStats.Group(Reply.str(Reply.item(r, HEAD, WIDTH, i, Each.GROUP)),
                    num(Reply.item(r, HEAD, WIDTH, i, Each.SCHEDULED)), num(Reply.item(r, HEAD, WIDTH, i, Each.RUNNING)),
                    limits(num(Reply.item(r, HEAD, WIDTH, i, Each.CONCURRENCY)), num(Reply.item(r, HEAD, WIDTH, i, Each.RATE_N)),
                            num(Reply.item(r, HEAD, WIDTH, i, Each.RATE_MS))),
                    (int) num(Reply.item(r, HEAD, WIDTH, i, Each.WEIGHT))));
        }
        return new GroupStats(Reply.longAt(r, Out.GROUPS), defaults, top);
    }

    private static long num(Object o) {
        return o instanceof Long l ? l : Long.parseLong(Reply.str(o));
    }

    static Limits limits(long concurrency, long rateN, long rateMs) {
        Limits l = Limits.none();
        if (rateN > 0 && rateMs > 0) {
            l = l.withRate((int) rateN, Duration.ofMillis(rateMs));
        }
        return concurrency > 0 ? l.concurrency((int) concurrency) : l;
    }
}
