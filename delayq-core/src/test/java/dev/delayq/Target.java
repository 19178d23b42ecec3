package dev.delayq;

import dev.delayq.testkit.RedisCluster;
import dev.delayq.testkit.RedisServer;
import java.util.List;

/** Where a contract test runs: one Redis, or a Redis Cluster (commands on a key go to the key's master). */
interface Target {
    String uri();

    boolean cluster();

    /** Runs a command; a keyed command (key in args[1]) runs on the node that owns the key. */
    Object call(String... args);

    /** Runs a command on every master (e.g. SCRIPT FLUSH). */
    void onEveryMaster(String... args);

    /** How many times Redis ran {@code command} (INFO commandstats), summed over the masters. */
    long calls(String command);

    static Target of(RedisServer server) {
        return new Target() {
            @Override
            public String uri() {
                return server.uri();
            }

            @Override
            public boolean cluster() {
                return false;
            }

            @Override
            public Object call(String... args) {
                return server.call(args);
            }

            @Override
            public void onEveryMaster(String... args) {
                server.call(args);
            }

            @Override
            public long calls(String command) {
                return commandCalls(server, command);
            }
        };
    }

    static Target of(RedisCluster cluster) {
        return new Target() {
            @Override
            public String uri() {
                return cluster.uri();
            }

            @Override
            public boolean cluster() {
                return true;
            }

            @Override
            public Object call(String... args) {
                if (args.length > 1 && !args[0].equalsIgnoreCase("TIME") && !args[0].equalsIgnoreCase("SCRIPT")) {
                    return cluster.masterOf(cluster.slotOf(args[1])).call(args);
                }
                return cluster.running().get(0).call(args);
            }

            @Override
            public void onEveryMaster(String... args) {
                for (RedisServer n : cluster.running()) {
                    if ("master".equals(n.info("replication").get("role"))) {
                        n.call(args);
                    }
                }
            }

            @Override
            public long calls(String command) {
                long sum = 0;
                for (RedisServer n : cluster.running()) {
                    sum += commandCalls(n, command);
                }
                return sum;
            }
        };
    }

    private static long commandCalls(RedisServer server, String command) {
        String line = server.info("commandstats").getOrDefault("cmdstat_" + command, "calls=0,");
        int at = line.indexOf("calls=") + 6;
        return Long.parseLong(line.substring(at, line.indexOf(',', at)));
    }

    /** Redis TIME as epoch ms. */
    default long nowMillis() {
        List<?> t = (List<?>) call("TIME");
        return Long.parseLong((String) t.get(0)) * 1000 + Long.parseLong((String) t.get(1)) / 1000;
    }
}
