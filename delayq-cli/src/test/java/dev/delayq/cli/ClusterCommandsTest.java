package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.testkit.RedisClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The command line against a Redis Cluster (--cluster) and a partitioned queue (--partitions). */
class ClusterCommandsTest {
    @RegisterExtension
    static final RedisClusterExtension CLUSTER = new RedisClusterExtension();

    @Test
    void commandsWorkOnAClusterAndSeeAPartitionedQueueAsOne() throws Exception {
        Cli cli = new Cli(CLUSTER.cluster().uri(), CLUSTER.prefix());
        for (int i = 0; i < 30; i++) {
            Cli.Result r = cli.run("enqueue", "hot", "--id", "job-" + i, "--delay", "1h", "--cluster", "--partitions", "3");
            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(r.out().strip()).isEqualTo("created job-" + i);
        }
        Cli.Result dup = cli.run("enqueue", "hot", "--id", "job-7", "--cluster");
        assertThat(dup.out().strip()).isEqualTo("duplicate job-7");

        JsonNode stats = Json.MAPPER.readTree(cli.run("stats", "hot", "--cluster", "--json").out());
        assertThat(stats.get("scheduled").asLong()).isEqualTo(30);

        Cli.Result list = cli.run("list", "hot", "--state", "scheduled", "--limit", "100", "--cluster", "--json");
        assertThat(list.lines()).hasSize(30);
        Cli.Result job = cli.run("job", "hot", "job-7", "--cluster", "--json");
        assertThat(Json.MAPPER.readTree(job.out()).get("state").asText()).isEqualTo("scheduled");
        assertThat(cli.run("cancel", "hot", "job-7", "--cluster").out().strip()).isEqualTo("cancelled job-7");
        // Debounce and the changes by dedupe key, in the key's partition.
        Cli.Result first = cli.run("enqueue", "hot", "--payload", "v1", "--delay", "1h", "--dedupe-key", "user-9",
                "--dedupe-mode", "debounce", "--cluster");
        assertThat(first.out()).startsWith("created ");
        String holder = first.out().strip().substring("created ".length());
        assertThat(cli.run("enqueue", "hot", "--payload", "v2", "--dedupe-key", "user-9", "--dedupe-mode", "debounce",
                "--delay", "2h", "--cluster").out()).isEqualTo("replaced " + holder + "\n");
        assertThat(cli.run("reschedule", "hot", "--dedupe-key", "user-9", "--delay", "3h", "--cluster").out())
                .startsWith("rescheduled " + holder + " ");
        JsonNode byKey = Json.MAPPER.readTree(cli.run("job", "hot", "--dedupe-key", "user-9", "--cluster", "--json").out());
        assertThat(byKey.get("id").asText()).isEqualTo(holder);
        assertThat(byKey.get("payload").asText()).isEqualTo("v2");
        assertThat(cli.run("cancel", "hot", "--dedupe-key", "user-9", "--cluster").exit()).isZero();
        assertThat(cli.run("check", "hot", "--cluster").exit()).isZero();

        Cli.Result mismatch = cli.run("stats", "hot", "--cluster", "--partitions", "4");
        assertThat(mismatch.exit()).isEqualTo(Exit.USAGE);
        assertThat(mismatch.err()).contains("queue 'hot' has 3 partition(s); asked for 4");
    }
}
