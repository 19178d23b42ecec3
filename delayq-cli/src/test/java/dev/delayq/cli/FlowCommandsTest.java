package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.ClaimOptions;
import dev.delayq.ClaimedJob;
import dev.delayq.DelayQ;
import dev.delayq.JobInfo;
import dev.delayq.testkit.RedisExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code limit}, {@code events}, and the priority and timeout of {@code enqueue}. */
class FlowCommandsTest {
    /** An instant as the command line prints event times: ISO-8601 UTC with milliseconds. */
    private static final String ISO = "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z";

    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    @TempDir
    Path dir;

    @Test
    void limitShowsSetsAndClearsAQueuesLimitsAndStatsShowThem() throws Exception {
        Cli cli = new Cli(REDIS.uri(), REDIS.prefix());
        assertThat(cli.run("limit", "mail", "--create").out()).isEqualTo("limits mail: none\n");
        Cli.Result set = cli.run("limit", "mail", "--rate", "50/1s", "--concurrency", "10");
        assertThat(set.exit()).as(set.err()).isZero();
        assertThat(set.out()).isEqualTo("limits mail: rate 50/1s, concurrency 10\n");
        assertThat(cli.run("limit", "mail", "--rate", "5/250ms").out()).isEqualTo("limits mail: rate 5/250ms, concurrency 10\n");
        JsonNode stats = Json.MAPPER.readTree(cli.run("--json", "stats", "mail").out());
        assertThat(stats.get("rate").asText()).isEqualTo("5/250ms");
        assertThat(stats.get("concurrency").asInt()).isEqualTo(10);
        assertThat(stats.get("events").isNull()).isTrue();
        assertThat(cli.run("stats", "mail").out()).contains("limits      rate 5/250ms, concurrency 10");
        assertThat(cli.run("limit", "mail", "--clear").out()).isEqualTo("limits mail: none\n");

        Cli.Result bad = cli.run("limit", "mail", "--rate", "fifty");
        assertThat(bad.exit()).isEqualTo(Exit.USAGE);
        assertThat(bad.err()).isEqualTo("delayq: --rate 'fifty' is invalid: use N/DUR or N/UNIT, e.g. 50/1s, 1000/1m or "
                + "10/s\n");
        Cli.Result zero = cli.run("limit", "mail", "--concurrency", "0");
        assertThat(zero.exit()).isEqualTo(Exit.USAGE);
        assertThat(zero.err()).contains("concurrency limit is 0: it must be between 1 and 1000000000");
    }

    @Test
    void limitTakesARatePerUnitAndRefusesClearWithALimit() throws Exception {
        Cli cli = new Cli(REDIS.uri(), REDIS.prefix());
        assertThat(cli.run("enqueue", "unit", "--id", "a", "--delay", "1h").exit()).isZero();
        Cli.Result perSecond = cli.run("limit", "unit", "--rate", "10/s");
        assertThat(perSecond.exit()).as(perSecond.err()).isZero();
        assertThat(perSecond.out()).isEqualTo("limits unit: rate 10/1s\n");
        assertThat(cli.run("limit", "unit", "--rate", "600/m").out()).isEqualTo("limits unit: rate 600/1m\n");
        assertThat(cli.run("limit", "unit", "--rate", "5000/h").out()).isEqualTo("limits unit: rate 5000/1h\n");
        assertThat(cli.run("limit", "unit", "--rate", "100000/d", "--concurrency", "2").out())
                .isEqualTo("limits unit: rate 100000/1d, concurrency 2\n");

        // --clear with a limit was applied as "clear, then set": refused, and nothing changes.
        Cli.Result both = cli.run("limit", "unit", "--concurrency", "1", "--clear");
        assertThat(both.exit()).isEqualTo(Exit.USAGE);
        assertThat(both.out()).isEmpty();
        assertThat(both.err()).isEqualTo("delayq: --clear removes both limits, so it does not go with --rate or "
                + "--concurrency: use one or the other (--rate and --concurrency replace only the limit they name)\n");
        assertThat(cli.run("limit", "unit", "--clear", "--rate", "1/s").exit()).isEqualTo(Exit.USAGE);
        assertThat(cli.run("limit", "unit").out()).isEqualTo("limits unit: rate 100000/1d, concurrency 2\n");
    }

    @Test
    void eventsAreTurnedOnPrintedAsLinesOrJsonAndTurnedOff() throws Exception {
        Cli cli = new Cli(REDIS.uri(), REDIS.prefix());
        assertThat(cli.run("events", "ev", "--enable", "--cap", "50", "--create").exit()).isZero();
        assertThat(cli.run("enqueue", "ev", "--id", "a", "--priority", "7", "--job-timeout", "30s", "--delay", "1h").exit()).isZero();
        assertThat(cli.run("cancel", "ev", "a").exit()).isZero();
        Cli.Result lines = cli.run("events", "ev");
        assertThat(lines.exit()).isZero();
        assertThat(lines.lines()).hasSize(2);
        assertThat(lines.lines().get(0)).matches("\\d+-\\d+ enqueued a at=" + ISO);
        assertThat(lines.lines().get(1)).matches("\\d+-\\d+ cancelled a");
        Cli.Result json = cli.run("--json", "events", "ev");
        JsonNode first = Json.MAPPER.readTree(json.lines().get(0));
        assertThat(first.get("type").asText()).isEqualTo("enqueued");
        assertThat(first.get("id").asText()).isEqualTo("a");
        String after = first.get("eventId").asText();
        assertThat(cli.run("events", "ev", "--from", after).lines()).hasSize(1);
        assertThat(Json.MAPPER.readTree(cli.run("--json", "stats", "ev").out()).get("events").asLong()).isEqualTo(50);
        assertThat(cli.run("events", "ev", "--disable").exit()).isZero();
        Cli.Result off = cli.run("events", "ev");
        assertThat(off.out()).isEmpty();
        assertThat(off.err()).contains("events of queue 'ev' are off");
        assertThat(cli.run("events", "ev", "--from", "yesterday").exit()).isEqualTo(Exit.USAGE);
    }

    @Test
    void eventsFollowStopsAfterItsLimitAndPrintsFieldsInOneOrderWithIsoTimesAndJsonNumbers() throws Exception {
        Cli cli = new Cli(REDIS.uri(), REDIS.prefix());
        assertThat(cli.run("events", "fol", "--enable", "--create").exit()).isZero();
        for (String id : List.of("f1", "f2", "f3")) {
            assertThat(cli.run("enqueue", "fol", "--id", id).exit()).isZero();
        }
        Cli.Result two = cli.start(new java.io.ByteArrayInputStream(new byte[0]), "events", "fol", "--follow", "--limit", "2")
                .await(Duration.ofSeconds(60));
        assertThat(two.exit()).as(two.err()).isZero();
        assertThat(two.lines()).hasSize(2);
        assertThat(two.lines().get(1)).matches("\\d+-\\d+ enqueued f2 at=" + ISO);

        // Following from the last event: the next one is printed, then the command ends by itself.
        String last = Json.MAPPER.readTree(cli.run("--json", "events", "fol", "--limit", "3").lines().get(2))
                .get("eventId").asText();
        Cli.Running next = cli.start(new java.io.ByteArrayInputStream(new byte[0]), "events", "fol", "--follow", "--from",
                last, "--limit", "1");
        try (DelayQ dq = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).build()) {
            List<ClaimedJob> claimed = dq.queue("fol").leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1))).jobs();
            assertThat(claimed).hasSize(1);
            Cli.Result one = next.await(Duration.ofSeconds(60));
            assertThat(one.exit()).as(one.err()).isZero();
            // Fields in one order (at, attempt, token), whatever order the stream's map holds them in.
            assertThat(one.lines()).hasSize(1);
            assertThat(one.lines().get(0)).matches("\\d+-\\d+ started f1 at=" + ISO + " attempt=1 token=\\d+");
            JsonNode started = Json.MAPPER.readTree(cli.run("--json", "events", "fol", "--from", last).out());
            assertThat(started.get("type").asText()).isEqualTo("started");
            assertThat(started.get("attempt").isIntegralNumber()).isTrue();
            assertThat(started.get("attempt").asInt()).isEqualTo(1);
            assertThat(started.get("token").isIntegralNumber()).isTrue();
            assertThat(started.get("at").isIntegralNumber()).isTrue();
            assertThat(started.get("time").asText()).matches(ISO);
            assertThat(Json.MAPPER.readTree(cli.run("--json", "events", "fol", "--limit", "1").out()).get("at")
                    .isIntegralNumber()).isTrue();
        }

        for (String bad : List.of("0", "-1")) {
            Cli.Result r = cli.run("events", "fol", "--limit", bad);
            assertThat(r.exit()).as(bad).isEqualTo(Exit.USAGE);
            assertThat(r.out()).isEmpty();
            assertThat(r.err()).isEqualTo("delayq: --limit is " + bad + ": it must be at least 1 (leave it out for 1000 "
                    + "events)\n");
            Cli.Result f = cli.run("events", "fol", "--follow", "--limit", bad);
            assertThat(f.exit()).as(bad).isEqualTo(Exit.USAGE);
            assertThat(f.err()).isEqualTo("delayq: --limit is " + bad + ": it must be at least 1 (leave it out for no "
                    + "limit)\n");
        }
    }

    @Test
    void enqueueTakesAPriorityAndATimeoutFromOptionsAndFromJsonl() throws Exception {
        Cli cli = new Cli(REDIS.uri(), REDIS.prefix());
        assertThat(cli.run("enqueue", "pri", "--id", "low").exit()).isZero();
        assertThat(cli.run("enqueue", "pri", "--id", "high", "--priority", "9", "--job-timeout", "2m").exit()).isZero();
        Path jsonl = dir.resolve("jobs.jsonl");
        Files.writeString(jsonl, "{\"id\":\"mid\",\"priority\":5,\"timeout\":\"45s\"}\n{\"id\":\"bad\",\"priority\":10}\n",
                StandardCharsets.UTF_8);
        Cli.Result bulk = cli.run("enqueue", "pri", "--jsonl", jsonl.toString());
        assertThat(bulk.lines()).containsExactly("created mid", "error 2 priority is 10: it must be between 0 and 9");
        Cli.Result badPriority = cli.run("enqueue", "pri", "--priority", "10");
        assertThat(badPriority.exit()).isEqualTo(Exit.USAGE);
        try (DelayQ dq = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).build()) {
            List<ClaimedJob> claimed = dq.queue("pri").leases().claim(ClaimOptions.of(3, Duration.ofMinutes(1))).jobs();
            assertThat(claimed).extracting(ClaimedJob::id).containsExactly("high", "mid", "low");
            assertThat(claimed).extracting(ClaimedJob::timeoutMillis).containsExactly(120_000L, 45_000L, 0L);
            claimed.forEach(j -> dq.queue("pri").leases().complete(j.lease()));
            JobInfo high = dq.queue("pri").get("high").orElseThrow();
            assertThat(high.priority()).isEqualTo(9);
        }
    }
}
