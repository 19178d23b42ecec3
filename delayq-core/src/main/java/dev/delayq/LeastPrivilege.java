package dev.delayq;

import dev.delayq.internal.base.Validation;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The Redis ACL rules of a user that can do exactly what delayq does under one key prefix and nothing else: its
 * prefix's keys and channels only, and only the commands delayq sends (directly and from its scripts). Producers,
 * workers, the command line and the dashboard all work as such a user; another prefix's keys, {@code FLUSHALL},
 * {@code CONFIG}, {@code KEYS} and the like are refused with {@code NOPERM}. ({@code CONFIG GET maxmemory-policy},
 * with which a client warns about an evicting Redis, is refused too: the check is then skipped, and Redis's
 * {@code ACL LOG} shows one refused {@code config|get} per client.)
 *
 * <p>From the command line: {@code delayq acl orders-app --prefix dq | redis-cli}, then
 * {@code redis-cli ACL SETUSER orders-app '>secret'}.
 *
 * <p>On a cluster, ACL users are per node: run the same {@code ACL SETUSER} on every node (or share an ACL file).
 */
public final class LeastPrivilege {
    /** Commands the client sends itself: handshake, scripts, server facts, wake-ups, tools. */
    private static final List<String> CLIENT = List.of(
            "+hello", "+auth", "+ping", "+select", "+client|setname", "+client|id",
            "+evalsha", "+eval", "+script|load",
            "+info", "+time", "+wait",
            "+subscribe", "+unsubscribe", "+publish",
            "+exists", "+hget", "+hsetnx", "+sadd", "+smembers", "+xread", "+xrevrange", "+scan", "+unlink",
            "+cluster|nodes", "+cluster|slots", "+cluster|myid", "+readonly");

    /** Commands delayq's Lua scripts call (Redis checks these against the calling user too). */
    static final List<String> SCRIPTS = List.of(
            "del", "exists", "get", "hdel", "hexists", "hget", "hgetall", "hincrby", "hkeys", "hmget", "hscan", "hset",
            "hsetnx", "hstrlen", "pexpire", "pttl", "publish", "sadd", "scard", "set", "sismember", "smembers", "srem",
            "sscan", "time", "type", "xadd", "zadd", "zcard", "zcount",
            "zrange", "zrangebyscore", "zrem", "zremrangebyrank", "zscan", "zscore");

    private LeastPrivilege() {
    }

    /**
     * The rules for {@code prefix} on a Redis of {@code redisVersion} (e.g. {@code 7.0.15}; commands that only newer
     * servers know are added when the server has them). Each element is one rule of {@code ACL SETUSER}; add
     * {@code on} and a password ({@code >secret}) yourself.
     */
    public static List<String> rules(String prefix, String redisVersion) {
        Validation.prefix(prefix);
        Objects.requireNonNull(redisVersion, "redisVersion");
        List<String> out = new ArrayList<>();
        // Keys: "<prefix>:{*" (every queue's keys) and the queue registry; not "<prefix>:*", which would also
        // take in the keys of a prefix "<prefix>:other".
        out.add("resetkeys");
        out.add("~" + prefix + ":{*");
        out.add("~" + prefix + ":queues");
        out.add("resetchannels");
        out.add("&" + prefix + ":{*");
        out.add("-@all");
        out.addAll(CLIENT);
        for (String c : SCRIPTS) {
            String rule = "+" + c;
            if (!out.contains(rule)) {
                out.add(rule);
            }
        }
        if (atLeast(redisVersion, 7, 0)) {
            out.add("+cluster|shards");
        }
        if (atLeast(redisVersion, 7, 2)) {
            out.add("+client|setinfo");
            out.add("+waitaof");
        }
        return List.copyOf(out);
    }

    /**
     * The whole command for {@code redis-cli}: {@code ACL SETUSER <user> on ><password> <rules...>}. Quote it for
     * your shell as needed (the rules hold <code>~ &amp; | { *</code>).
     */
    public static String setUser(String user, String password, String prefix, String redisVersion) {
        if (user == null || user.isEmpty() || !user.chars().allMatch(c -> c > ' ' && c < 127)) {
            throw new IllegalArgumentException("ACL user name '" + user + "' is invalid: use printable ASCII without spaces");
        }
        if (password == null || password.isEmpty() || !password.chars().allMatch(c -> c > ' ' && c < 127)) {
            throw new IllegalArgumentException("ACL password is invalid: use printable ASCII without spaces");
        }
        return "ACL SETUSER " + user + " on >" + password + " " + String.join(" ", rules(prefix, redisVersion));
    }

    static boolean atLeast(String version, int major, int minor) {
        String[] parts = version.trim().split("\\.");
        try {
            int ma = Integer.parseInt(parts[0]);
            int mi = parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
            return ma > major || (ma == major && mi >= minor);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Redis version '" + version + "' is invalid: use MAJOR.MINOR[.PATCH], "
                    + "e.g. 7.0.15", e);
        }
    }
}
