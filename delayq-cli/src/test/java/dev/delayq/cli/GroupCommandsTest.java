package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code limit --group-concurrency/--group-rate/--group}, {@code stats --groups} and {@code enqueue --group}. */
class GroupCommandsTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    @Test
    void limitSetsEveryGroupsLimitsAndOneGroupsOwnAndStatsShowsTheGroupsByBacklog() throws Exception {
        Cli cli = new Cli(REDIS.uri(), REDIS.prefix());
        for (int i = 0; i < 3; i++) {
            assertThat(cli.run("enqueue", "tenants", "--group", "big", "--id", "b" + i).exit()).isZero();
        }
        assertThat(cli.run("enqueue", "tenants", "--group", "small", "--id", "s0").exit()).isZero();
        assertThat(cli.run("limit", "tenants", "--group-concurrency", "2", "--group-rate", "100/1m").out())
                .isEqualTo("limits tenants: none; every group: rate 100/1m, concurrency 2\n");
        assertThat(cli.run("limit", "tenants", "--group-rate", "none").out())
                .isEqualTo("limits tenants: none; every group: concurrency 2\n");
        assertThat(cli.run("limit", "tenants", "--group", "big", "--concurrency", "5", "--weight", "3").out())
                .isEqualTo("limits tenants group big: concurrency 5, weight 3\n");
        assertThat(cli.run("limit", "tenants", "--group", "big", "--rate", "10/s").out())
                .isEqualTo("limits tenants group big: rate 10/1s, concurrency 5, weight 3\n");
        assertThat(cli.run("limit", "tenants", "--group", "small").out())
                .isEqualTo("limits tenants group small: concurrency 2, weight 1\n");
        JsonNode json = Json.MAPPER.readTree(cli.run("--json", "limit", "tenants", "--group", "big").out());
        assertThat(json.get("concurrency").asInt()).isEqualTo(5);
        assertThat(json.get("weight").asInt()).isEqualTo(3);

        Cli.Result stats = cli.run("stats", "tenants", "--groups");
        assertThat(stats.out()).startsWith("groups tenants: 2; every group: concurrency 2\n")
                .contains("GROUP  SCHEDULED  RUNNING  WEIGHT  LIMITS\n")
                .contains("big            3        0       3  rate 10/1s, concurrency 5\n")
                .contains("small          1        0       1  concurrency 2\n");
        assertThat(stats.out().indexOf("big ")).isLessThan(stats.out().indexOf("small "));
        JsonNode top = Json.MAPPER.readTree(cli.run("--json", "stats", "tenants", "--groups", "--top", "1").out());
        assertThat(top.get("groups").asLong()).isEqualTo(2);
        assertThat(top.get("top")).hasSize(1);
        assertThat(top.get("top").get(0).get("group").asText()).isEqualTo("big");
        assertThat(top.get("top").get(0).get("scheduled").asLong()).isEqualTo(3);
        assertThat(Json.MAPPER.readTree(cli.run("--json", "stats", "tenants").out()).get("groups").asLong()).isEqualTo(2);
        assertThat(cli.run("stats", "tenants").out()).contains("groups      2 (with scheduled jobs: stats tenants --groups)\n");

        assertThat(cli.run("limit", "tenants", "--group", "big", "--clear").out())
                .isEqualTo("limits tenants group big: concurrency 2, weight 1\n");

        Cli.Result both = cli.run("limit", "tenants", "--group", "big", "--clear", "--weight", "2");
        assertThat(both.exit()).isEqualTo(Exit.USAGE);
        assertThat(both.err()).contains("--clear returns the group to the defaults");
        Cli.Result badGroup = cli.run("limit", "tenants", "--group", "a b", "--concurrency", "1");
        assertThat(badGroup.exit()).isEqualTo(Exit.USAGE);
        assertThat(badGroup.err()).isEqualTo("delayq: group 'a b' is invalid: use 1-128 characters: letters, digits and "
                + ". _ - : @ / + =\n");
        Cli.Result weightAlone = cli.run("limit", "tenants", "--weight", "2");
        assertThat(weightAlone.exit()).isEqualTo(Exit.USAGE);
        assertThat(weightAlone.err()).contains("--weight is a group's: use it with --group G");
        Cli.Result badWeight = cli.run("limit", "tenants", "--group", "big", "--weight", "0");
        assertThat(badWeight.exit()).isEqualTo(Exit.USAGE);
        assertThat(badWeight.err()).contains("group weight is 0");
        Cli.Result topAlone = cli.run("stats", "tenants", "--top", "3");
        assertThat(topAlone.exit()).isEqualTo(Exit.USAGE);
    }
}
