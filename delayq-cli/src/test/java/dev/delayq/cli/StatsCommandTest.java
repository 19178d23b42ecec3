package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.testkit.RedisExtension;
import dev.delayq.testkit.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class StatsCommandTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    @Test
    void statsPrintsCountsAsTextAndJson() throws Exception {
        try (DelayQ dq = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).build()) {
            dq.queue("orders").enqueue(Job.builder().id("a").delay(Duration.ofHours(1)).build());
            dq.queue("orders").enqueue(Job.builder().id("b").build());
            dq.queue("emails").enqueue(Job.builder().id("c").build());
        }
        Cli cli = new Cli(REDIS.uri(), REDIS.prefix());
        Cli.Result text = cli.run("stats", "orders");
        assertThat(text.exit()).isZero();
        assertThat(text.out()).contains("scheduled   2").contains("enqueued  2");

        Cli.Result json = cli.run("--json", "stats", "orders");
        JsonNode node = Json.MAPPER.readTree(json.out());
        assertThat(node.get("scheduled").asLong()).isEqualTo(2);
        assertThat(node.get("processing").isIntegralNumber()).isTrue();
        assertThat(node.get("totals").get("enqueued").asLong()).isEqualTo(2);

        Cli.Result queues = cli.run("queues", "--json");
        assertThat(queues.exit()).isZero();
        assertThat(queues.lines()).hasSize(2);
        assertThat(Json.MAPPER.readTree(queues.lines().get(0)).get("queue").asText()).isEqualTo("emails");
    }

    @Test
    void errorsAreOneLineWithoutAStackTraceAndNonZero() {
        Cli cli = new Cli(REDIS.uri(), REDIS.prefix());
        Cli.Result missing = cli.run("stats");
        assertThat(missing.exit()).isEqualTo(Exit.USAGE);
        assertThat(missing.err()).startsWith("delayq: Missing required parameter: 'QUEUE'").doesNotContain("\tat ");

        Cli.Result badName = cli.run("stats", "{bad}");
        assertThat(badName.exit()).isEqualTo(Exit.USAGE);
        assertThat(badName.err()).contains("queue name '{bad}' is invalid").doesNotContain("\tat ");

        int port = RedisServer.freePort();
        Cli.Result down = new Cli("redis://127.0.0.1:" + port, "x").run("stats", "q", "--timeout", "2s");
        assertThat(down.exit()).isEqualTo(Exit.REDIS);
        assertThat(down.err().strip()).isEqualTo("delayq: cannot reach Redis at redis://127.0.0.1:" + port
                + " (connect): Connection refused");

        Cli.Result verbose = new Cli("redis://127.0.0.1:" + port, "x").run("stats", "q", "--verbose", "--timeout", "2s");
        assertThat(verbose.err()).contains("\tat ");
    }
}
