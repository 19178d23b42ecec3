package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.internal.Keys;
import dev.delayq.testkit.RedisExtension;
import dev.delayq.testkit.RedisServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
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
        assertThat(text.out()).contains("  ready     1 (due now)", "  delayed   1 (due later)",
                "  retrying  0 (failed, waiting for a retry)");

        Cli.Result json = cli.run("--json", "stats", "orders");
        JsonNode node = Json.MAPPER.readTree(json.out());
        assertThat(node.get("scheduled").asLong()).isEqualTo(2);
        assertThat(node.get("ready").asLong()).isEqualTo(1);
        assertThat(node.get("delayed").asLong()).isEqualTo(1);
        assertThat(node.get("retrying").asLong()).isZero();
        assertThat(node.get("processing").isIntegralNumber()).isTrue();
        assertThat(node.get("totals").get("enqueued").asLong()).isEqualTo(2);

        Cli.Result queues = cli.run("queues", "--json");
        assertThat(queues.exit()).isZero();
        assertThat(queues.lines()).hasSize(2);
        assertThat(Json.MAPPER.readTree(queues.lines().get(0)).get("queue").asText()).isEqualTo("emails");
        // The dashboard's key for the same name (one mapping, JobFields.stats).
        assertThat(Json.MAPPER.readTree(queues.lines().get(0)).get("name").asText()).isEqualTo("emails");
    }

    @Test
    void statsCountTheJobsKeptPastTheirRetentionOnceAWorkerHasPurged() throws Exception {
        Cli cli = new Cli(REDIS.uri(), REDIS.prefix());
        try (DelayQ dq = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).doneRetention(Duration.ofMillis(1))
                .deadRetention(Duration.ofMillis(1)).build()) {
            JobQueue q = dq.queue("kept");
            q.enqueueAll(List.of(Job.builder().id("w1").build(), Job.builder().id("w2").build()));
            assertThat(Json.MAPPER.readTree(cli.run("--json", "stats", "kept").out()).get("pastRetention").isNull())
                    .as("no worker has purged yet: the retention is not known").isTrue();
            // A worker runs them and its purge pass removes them, recording the retention it purges by.
            try (dev.delayq.Worker w = dev.delayq.Worker.builder(q, ctx -> { }).purgeInterval(Duration.ofMillis(200))
                    .build().start()) {
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30))
                        .until(() -> q.inspector().stats().pastRetention() == 0 && q.inspector().stats().done() == 0 && q.inspector().stats().scheduled() == 0);
            }
            // Jobs that end with no worker purging are kept past their retention: the figure an operator watches.
            q.enqueueAll(List.of(Job.builder().id("k1").build(), Job.builder().id("k2").build()));
            q.leases().completeAllAsync(q.leases().claim(dev.delayq.ClaimOptions.of(2, Duration.ofMinutes(1))).jobs()
                    .stream().map(dev.delayq.ClaimedJob::lease).toList()).join();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> q.inspector().stats().pastRetention() == 2);
        }
        JsonNode node = Json.MAPPER.readTree(cli.run("--json", "stats", "kept").out());
        assertThat(node.get("pastRetention").asLong()).isEqualTo(2);
        assertThat(cli.run("stats", "kept").out()).contains("past retention 2 (kept done and dead jobs waiting for the purge)");
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

    @Test
    void statsShowWhetherTheQueueIsPausedAndItsOldestDueJob() throws Exception {
        Cli cli = new Cli(REDIS.uri(), REDIS.prefix());
        try (DelayQ dq = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).build()) {
            JobQueue q = dq.queue("orders");
            q.enqueue(Job.builder().id("later").delay(Duration.ofHours(1)).build());
            JsonNode waiting = Json.MAPPER.readTree(cli.run("--json", "stats", "orders").out());
            assertThat(waiting.get("paused").asBoolean()).isFalse();
            assertThat(Instant.parse(waiting.get("oldestDueAt").asText())).isEqualTo(q.get("later").orElseThrow().dueAt());
            assertThat(waiting.get("oldestDueLagMillis").asLong()).isZero(); // not due yet
            assertThat(waiting.get("totals").get("enqueued").asLong()).isEqualTo(1); // the keys there were stay
            assertThat(cli.run("stats", "orders").lines()).contains("  enqueued  1", "  quarantined 0", "paused      no",
                    "oldest due  " + q.get("later").orElseThrow().dueAt() + " (not due yet)");

            q.enqueue(Job.builder().id("overdue").runAt(Instant.now().minus(Duration.ofMinutes(5))).build());
            q.inspector().pause();
            JsonNode lagging = Json.MAPPER.readTree(cli.run("--json", "stats", "orders").out());
            assertThat(lagging.get("paused").asBoolean()).isTrue();
            assertThat(Instant.parse(lagging.get("oldestDueAt").asText())).isEqualTo(q.get("overdue").orElseThrow().dueAt());
            assertThat(lagging.get("oldestDueLagMillis").asLong()).isGreaterThanOrEqualTo(Duration.ofMinutes(5).toMillis());
            Cli.Result text = cli.run("stats", "orders");
            assertThat(text.lines()).contains("paused      yes");
            assertThat(text.out()).containsPattern("oldest due  \\S+ \\(due 5m[0-9sm]* ago\\)");

            JobQueue empty = dq.queue("empty");
            empty.enqueue(Job.builder().id("x").build());
            empty.cancel("x");
            JsonNode none = Json.MAPPER.readTree(cli.run("--json", "stats", "empty").out());
            assertThat(none.get("oldestDueAt").isNull()).isTrue();
            assertThat(none.get("oldestDueLagMillis").asLong()).isZero();
            assertThat(cli.run("stats", "empty").lines()).contains("oldest due  -");
        }
    }

    @Test
    void queuesFlagsABadRegistryEntryAndListsTheOthers() throws Exception {
        try (DelayQ dq = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).build()) {
            dq.queue("alpha").enqueue(Job.builder().id("a").build());
            dq.queue("gamma").enqueue(Job.builder().id("g").build());
            dq.queue("beta").enqueue(Job.builder().id("b").build());
        }
        String registry = new String(Keys.registry(REDIS.prefix()), StandardCharsets.UTF_8);
        REDIS.server().call("SADD", registry, "{bad}");
        // A queue whose counts cannot be read: its due set is not a sorted set.
        String betaDue = new String(new Keys(REDIS.prefix(), "beta").due(), StandardCharsets.UTF_8);
        REDIS.server().call("DEL", betaDue);
        REDIS.server().call("SET", betaDue, "not a sorted set");

        Cli cli = new Cli(REDIS.uri(), REDIS.prefix());
        Cli.Result text = cli.run("queues");
        assertThat(text.exit()).isEqualTo(Exit.FAILED);
        assertThat(text.lines()).hasSize(5);
        assertThat(text.lines().get(0)).startsWith("QUEUE ");
        assertThat(text.lines().get(1).split(" +")).containsExactly("alpha", "1", "0", "0", "0", "no", "-", "-", "0",
                "no", "workers"); // a due job, and no worker runs it
        assertThat(text.lines().get(2)).startsWith("beta ").contains(" ! ").contains("WRONGTYPE");
        assertThat(text.lines().get(3)).startsWith("gamma ");
        assertThat(text.lines().get(4)).startsWith("{bad} ").contains(" ! ").contains("queue name '{bad}' is invalid");
        assertThat(text.err()).isEqualTo("delayq: 2 of 4 queue(s) under prefix '" + REDIS.prefix()
                + "' could not be shown (flagged above)\n");

        Cli.Result json = cli.run("queues", "--json");
        assertThat(json.exit()).isEqualTo(Exit.FAILED);
        List<JsonNode> rows = new ArrayList<>();
        for (String line : json.lines()) {
            rows.add(Json.MAPPER.readTree(line));
        }
        assertThat(rows).extracting(n -> n.get("queue").asText()).containsExactly("alpha", "beta", "gamma", "{bad}");
        assertThat(rows.get(0).get("scheduled").asLong()).isEqualTo(1);
        assertThat(rows.get(0).has("error")).isFalse();
        assertThat(rows.get(1).get("error").asText()).contains("WRONGTYPE");
        assertThat(rows.get(3).get("error").asText()).contains("queue name '{bad}' is invalid");
    }
}
