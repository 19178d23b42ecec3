package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.testkit.RedisClusterExtension;
import dev.delayq.testkit.RedisServer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code delayq acl USER} prints the least-privilege ACL line; the command line then does its whole job as that user
 * (enqueue, work, inspect, change, limits, events) with nothing refused in Redis's ACL log, on one node and on a
 * cluster, while other keys and FLUSHALL are refused.
 */
class AclCommandTest {
    @RegisterExtension
    static final RedisClusterExtension CLUSTER = new RedisClusterExtension();

    private static final String PASSWORD = "cli-least-pw";

    @Test
    void theCommandLineWorksAsTheRestrictedUserOnOneNode() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            String prefix = "aclcli";
            Cli.Result acl = new Cli(server.uri(), prefix).run("acl", "jobs-cli");
            assertThat(acl.exit()).as(acl.err()).isZero();
            assertThat(acl.out()).startsWith("ACL SETUSER jobs-cli on resetkeys ~aclcli:{* ~aclcli:queues resetchannels "
                    + "&aclcli:{* -@all +hello").endsWith("\n").hasLineCount(1);
            apply(server, acl.out());
            server.call("ACL", "LOG", "RESET");

            Cli cli = new Cli("redis://jobs-cli:" + PASSWORD + "@127.0.0.1:" + server.port(), prefix);
            everyCommand(cli, List.of());
            assertThat(refusals(server)).isEmpty();

            Cli.Result refused = new Cli("redis://jobs-cli:" + PASSWORD + "@127.0.0.1:" + server.port(), "other")
                    .run("enqueue", "q", "--id", "x");
            assertThat(refused.exit()).isNotZero();
            assertThat(refused.err()).contains("NOPERM");
            assertThat(server.call("ACL", "DRYRUN", "jobs-cli", "FLUSHALL").toString()).contains("no permissions");
        }
    }

    @Test
    void theCommandLineWorksAsTheRestrictedUserOnACluster() throws Exception {
        String prefix = CLUSTER.prefix();
        String user = "cli-" + prefix;
        Cli admin = new Cli(CLUSTER.cluster().uri(), prefix);
        Cli.Result acl = admin.run("acl", user, "--cluster", "--json");
        assertThat(acl.exit()).as(acl.err()).isZero();
        JsonNode json = Json.MAPPER.readTree(acl.out());
        assertThat(json.get("user").asText()).isEqualTo(user);
        assertThat(json.get("prefix").asText()).isEqualTo(prefix);
        List<String> rules = new ArrayList<>();
        json.get("rules").forEach(n -> rules.add(n.asText()));
        assertThat(rules).contains("~" + prefix + ":{*", "-@all");
        for (RedisServer node : CLUSTER.cluster().running()) {
            List<String> cmd = new ArrayList<>(List.of("ACL", "SETUSER", user, "on", ">" + PASSWORD));
            cmd.addAll(rules);
            node.call(cmd.toArray(String[]::new));
            node.call("ACL", "LOG", "RESET");
        }
        String uri = CLUSTER.cluster().uri().replace("redis://", "redis://" + user + ":" + PASSWORD + "@");
        everyCommand(new Cli(uri, prefix), List.of("--cluster", "--partitions", "3"));
        for (RedisServer node : CLUSTER.cluster().running()) {
            assertThat(refusals(node)).allSatisfy(e -> assertThat(e).doesNotContain(user));
        }
    }

    @Test
    void wrongArgumentsAreUsageErrors() {
        try (RedisServer server = RedisServer.start()) {
            Cli cli = new Cli(server.uri(), "dq");
            Cli.Result badVersion = cli.run("acl", "u", "--redis-version", "seven");
            assertThat(badVersion.exit()).isEqualTo(Exit.USAGE);
            assertThat(badVersion.err()).isEqualTo("delayq: Redis version 'seven' is invalid: use MAJOR.MINOR[.PATCH], "
                    + "e.g. 7.0.15\n");
            Cli.Result badUser = cli.run("acl", "a b");
            assertThat(badUser.exit()).isEqualTo(Exit.USAGE);
            assertThat(badUser.err()).isEqualTo("delayq: USER 'a b' is invalid: use printable ASCII without spaces\n");
            Cli.Result older = cli.run("acl", "u", "--redis-version", "6.2");
            assertThat(older.out()).doesNotContain("cluster|shards");
        }
    }

    /** Runs every command a user of the command line reaches for, each of which must succeed. */
    private static void everyCommand(Cli cli, List<String> extra) {
        Function<String[], Cli.Result> ok = args -> {
            List<String> all = new ArrayList<>(Arrays.asList(args));
            all.addAll(extra);
            Cli.Result r = cli.run(all.toArray(String[]::new));
            assertThat(r.exit()).as(String.join(" ", args) + ": " + r.err()).isZero();
            return r;
        };
        ok.apply(new String[] {"events", "orders", "--enable", "--create"});
        ok.apply(new String[] {"limit", "orders", "--concurrency", "5"});
        ok.apply(new String[] {"enqueue", "orders", "--id", "a", "--payload", "hi"});
        ok.apply(new String[] {"enqueue", "orders", "--id", "later", "--delay", "1h"});
        ok.apply(new String[] {"enqueue", "orders", "--dedupe-key", "k1", "--dedupe-ttl", "10m", "--delay", "1h"});
        ok.apply(new String[] {"reschedule", "orders", "later", "--delay", "2h"});
        ok.apply(new String[] {"job", "orders", "later", "--json"});
        ok.apply(new String[] {"list", "orders", "--state", "scheduled"});
        ok.apply(new String[] {"cancel", "orders", "later"});
        ok.apply(new String[] {"cancel", "orders", "--dedupe-key", "k1"});
        ok.apply(new String[] {"enqueue", "orders", "--id", "fails", "--max-attempts", "1"});
        ok.apply(new String[] {"work", "orders", "--exec", "test \"$DELAYQ_JOB_ID\" != fails", "--exit-when-idle", "1s"});
        ok.apply(new String[] {"retry", "orders", "fails"});
        ok.apply(new String[] {"delete", "orders", "fails"});
        ok.apply(new String[] {"stats", "orders", "--json"});
        ok.apply(new String[] {"queues"});
        ok.apply(new String[] {"events", "orders", "--from", "0", "--limit", "5"});
        ok.apply(new String[] {"purge", "orders"});
        ok.apply(new String[] {"check", "orders"});
    }

    /** Applies a printed {@code ACL SETUSER} line (no quoting needed: its words hold no spaces) and sets a password. */
    private static void apply(RedisServer server, String line) {
        String[] words = line.strip().split(" ");
        assertThat(server.call(words)).isEqualTo("OK");
        assertThat(server.call("ACL", "SETUSER", words[2], ">" + PASSWORD)).isEqualTo("OK");
    }

    private static List<String> refusals(RedisServer server) {
        List<String> out = new ArrayList<>();
        if (server.call("ACL", "LOG") instanceof List<?> entries) {
            for (Object e : entries) {
                if (!String.valueOf(e).contains("config|get")) { // the optional eviction-policy check
                    out.add(String.valueOf(e));
                }
            }
        }
        return out;
    }
}
