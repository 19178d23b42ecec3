package dev.delayq.cli;

import dev.delayq.LeastPrivilege;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code delayq acl USER}: the Redis ACL command for a user limited to what delayq does under the prefix. */
@Command(name = "acl", mixinStandardHelpOptions = true,
        description = {"Print the Redis ACL command that gives USER exactly what delayq needs under --prefix and "
                + "nothing else: the prefix's keys and channels only (~PREFIX:{* ~PREFIX:queues &PREFIX:{*), only the "
                + "commands delayq sends. Producers, workers, this command line and the dashboard work as that user; "
                + "other keys, FLUSHALL, CONFIG, KEYS and the like are refused (NOPERM).",
                "The line sets no password and keeps any the user has: set one with ACL SETUSER USER '>secret'. The "
                        + "rules follow the server's version (read from --redis, or given with --redis-version). On a "
                        + "cluster, run it on every node: ACL users are per node."},
        footer = {"", "Examples:",
                "  delayq acl orders-app --prefix dq | redis-cli -h redis.internal",
                "  redis-cli -h redis.internal ACL SETUSER orders-app '>secret'",
                "  delayq acl orders-app --redis-version 7.2 --json"})
public final class AclCommand implements Callable<Integer> {
    @ParentCommand
    Main main;

    @Parameters(index = "0", paramLabel = "USER", description = "The ACL user name.")
    String user;

    @Option(names = "--redis-version", paramLabel = "VERSION",
            description = "The Redis version to write the rules for (e.g. 7.0); default: read from --redis.")
    String redisVersion;

    @Override
    public Integer call() {
        if (user.isEmpty() || !user.chars().allMatch(c -> c > ' ' && c < 127)) {
            throw new IllegalArgumentException("USER '" + Text.oneLine(user, 100) + "' is invalid: use printable ASCII "
                    + "without spaces");
        }
        String version = redisVersion != null ? redisVersion : main.client().serverVersion();
        List<String> rules = LeastPrivilege.rules(main.prefix(), version);
        if (main.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("user", user);
            m.put("prefix", main.prefix());
            m.put("redisVersion", version);
            m.put("rules", rules);
            main.out().println(Json.line(m));
        } else {
            main.out().println("ACL SETUSER " + user + " on " + String.join(" ", rules));
        }
        main.out().flush();
        return Exit.OK;
    }
}
