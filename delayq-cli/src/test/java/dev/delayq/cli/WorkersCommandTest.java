package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.Worker;
import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code delayq workers}: a running worker listed with the job it runs (text and JSON), a queue with due jobs and no
 * live worker flagged in {@code workers}, {@code queues} and {@code stats} ({@code "workers": 0}), an unknown queue
 * refused naming the known ones.
 */
class WorkersCommandTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    @Test
    void aRunningWorkerIsListedWithItsJobAndAQueueWithDueJobsAndNoWorkerIsFlagged() throws Exception {
        Cli cli = new Cli(REDIS.uri(), REDIS.prefix());
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (DelayQ dq = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).build()) {
            JobQueue orders = dq.queue("orders");
            dq.queue("mail").enqueue(Job.builder().id("m1").build()); // due now, and nobody works on mail
            orders.enqueue(Job.builder().id("o1").build());
            try (Worker w = Worker.builder(orders, job -> {
                started.countDown();
                release.await(60, TimeUnit.SECONDS);
            }).name("billing-1").concurrency(4).heartbeatInterval(Duration.ofMillis(200)).build().start()) {
                assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
                Awaitility.await().atMost(Duration.ofSeconds(30))
                        .until(() -> orders.inspector().workers().stream().anyMatch(i -> !i.running().isEmpty()));

                Cli.Result text = cli.run("workers");
                assertThat(text.exit()).isZero();
                assertThat(text.lines().get(0)).containsSubsequence("QUEUE", "NAME", "HOST", "PID", "CONCURRENCY",
                        "RUNNING", "UP", "LAST BEAT", "VERSION");
                assertThat(text.out()).contains("mail", "! no workers: jobs are due and no live worker runs them");
                String row = text.lines().stream().filter(l -> l.startsWith("orders")).findFirst().orElseThrow();
                assertThat(row.split("\\s+")).contains("billing-1", Long.toString(ProcessHandle.current().pid()), "4", "1");
                assertThat(text.out()).containsPattern("  running o1 for \\d+s \\(since 20\\d\\d-");

                Cli.Result json = cli.run("workers", "orders", "--json");
                assertThat(json.exit()).isZero();
                assertThat(json.lines()).hasSize(1);
                JsonNode n = Json.MAPPER.readTree(json.lines().get(0));
                assertThat(n.get("queue").asText()).isEqualTo("orders");
                assertThat(n.get("id").asText()).startsWith("billing-1#");
                assertThat(n.get("name").asText()).isEqualTo("billing-1");
                assertThat(n.get("host").asText()).isNotBlank();
                assertThat(n.get("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
                assertThat(n.get("queues").get(0).asText()).isEqualTo("orders");
                assertThat(n.get("concurrency").asInt()).isEqualTo(4);
                assertThat(n.get("running").get(0).get("id").asText()).isEqualTo("o1");
                Instant jobStart = Instant.parse(n.get("running").get(0).get("startedAt").asText());
                assertThat(Instant.parse(n.get("startedAt").asText())).isBeforeOrEqualTo(jobStart.plusMillis(50));
                assertThat(Instant.parse(n.get("lastBeat").asText())).isAfterOrEqualTo(jobStart);
                assertThat(n.get("version").asText()).isNotBlank();
                assertThat(cli.run("workers", "mail", "--json").out()).isEmpty();

                // stats and queues: the live workers of each queue, and the flag where due jobs have none.
                assertThat(Json.MAPPER.readTree(cli.run("--json", "stats", "orders").out()).get("workers").asInt()).isEqualTo(1);
                assertThat(Json.MAPPER.readTree(cli.run("--json", "stats", "mail").out()).get("workers").asInt()).isZero();
                assertThat(cli.run("stats", "mail").out())
                        .contains("workers     0 (no workers: jobs are due and no live worker runs them)");
                assertThat(cli.run("stats", "orders").out()).contains("workers     1\n");
                Cli.Result queues = cli.run("queues");
                assertThat(queues.lines().get(0)).endsWith("WORKERS");
                assertThat(queues.lines().stream().filter(l -> l.startsWith("mail")).findFirst().orElseThrow())
                        .endsWith(" 0 no workers");
                assertThat(queues.lines().stream().filter(l -> l.startsWith("orders")).findFirst().orElseThrow())
                        .endsWith(" 1");
                assertThat(cli.run("queues", "--json").lines()).extracting(l -> Json.MAPPER.readTree(l).get("workers").asInt())
                        .containsExactly(0, 1); // mail, orders
                release.countDown();
            }
            assertThat(cli.run("workers", "orders", "--json").out()).as("a closed worker leaves at once").isEmpty();
            assertThat(cli.run("workers", "orders").out()).contains("- (no live workers)");
        }
    }

    @Test
    void anUnknownQueueIsRefusedNamingTheKnownOnes() {
        try (DelayQ dq = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).build()) {
            dq.queue("orders").enqueue(Job.builder().id("a").build());
        }
        Cli cli = new Cli(REDIS.uri(), REDIS.prefix());
        Cli.Result r = cli.run("workers", "ordrs");
        assertThat(r.exit()).isEqualTo(Exit.USAGE);
        assertThat(r.err().strip()).isEqualTo("delayq: queue 'ordrs' is not known under prefix '" + REDIS.prefix()
                + "' (known: orders); did you mean 'orders'? A queue that does not exist has no workers to show");
        assertThat(r.out()).isEmpty();
        Cli.Result bad = cli.run("workers", "{bad}");
        assertThat(bad.exit()).isEqualTo(Exit.USAGE);
        assertThat(bad.err()).contains("queue name '{bad}' is invalid").doesNotContain("\tat ");
    }
}
