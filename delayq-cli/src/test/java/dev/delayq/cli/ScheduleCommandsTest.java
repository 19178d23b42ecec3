package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.DelayQ;
import dev.delayq.JobQueue;
import dev.delayq.testkit.RedisExtension;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code schedule add|list|remove|tick}, {@code pause} and {@code resume}. */
class ScheduleCommandsTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    @Test
    void addListTickAndRemoveSchedules() throws Exception {
        Cli cli = new Cli(REDIS.uri(), REDIS.prefix());
        Cli.Result add = cli.run("schedule", "add", "reports", "nightly", "--cron", "30 2 * * *", "--zone", "Europe/Berlin",
                "--payload", "sales", "--missed", "once", "--max-attempts", "3");
        assertThat(add.exit()).as(add.err()).isZero();
        assertThat(add.out()).isEqualTo("created nightly\n");
        assertThat(cli.run("schedule", "add", "reports", "nightly", "--cron", "30 2 * * *", "--zone", "Europe/Berlin",
                "--payload", "sales v2").out()).isEqualTo("updated nightly\n");
        assertThat(cli.run("schedule", "add", "reports", "ping", "--every", "30s", "--no-overlap").out())
                .isEqualTo("created ping\n");

        Cli.Result list = cli.run("schedule", "list", "reports");
        assertThat(list.exit()).isZero();
        assertThat(list.lines()).hasSize(3);
        assertThat(list.lines().get(0)).startsWith("NAME").contains("SPEC", "ZONE", "NEXT", "LAST");
        assertThat(list.lines().get(1)).startsWith("nightly").contains("30 2 * * *", "Europe/Berlin", "skip");
        assertThat(list.lines().get(2)).startsWith("ping").contains("every 30s", "no overlap");

        Cli.Result json = cli.run("--json", "schedule", "list", "reports");
        assertThat(json.lines()).hasSize(2);
        JsonNode nightly = Json.MAPPER.readTree(json.lines().get(0));
        assertThat(nightly.get("name").asText()).isEqualTo("nightly");
        assertThat(nightly.get("spec").asText()).isEqualTo("30 2 * * *");
        assertThat(nightly.get("zone").asText()).isEqualTo("Europe/Berlin");
        assertThat(nightly.get("lastTick").isNull()).isTrue();
        assertThat(nightly.get("payload").asText()).isEqualTo("sales v2");
        assertThat(nightly.get("missed").asText()).isEqualTo("skip");
        Instant next = Instant.parse(nightly.get("nextTick").asText());
        JsonNode ping = Json.MAPPER.readTree(json.lines().get(1));
        assertThat(ping.get("spec").asText()).isEqualTo("every 30s");
        assertThat(ping.get("zone").isNull()).isTrue();
        assertThat(ping.get("noOverlap").asBoolean()).isTrue();
        assertThat(ping.get("everyMillis").asLong()).isEqualTo(30_000);

        // The tick is an ordinary job: `job` shows it under its id.
        String id = "nightly@" + next.toEpochMilli();
        Cli.Result job = cli.run("--json", "job", "reports", id);
        assertThat(job.exit()).as(job.err()).isZero();
        assertThat(Json.MAPPER.readTree(job.out()).get("name").asText()).isEqualTo("nightly");

        Cli.Result tick = cli.run("schedule", "tick", "reports");
        assertThat(tick.out()).isEqualTo("ticked reports: 0 job(s) enqueued\n");

        assertThat(cli.run("schedule", "remove", "reports", "nightly").out()).isEqualTo("removed nightly\n");
        Cli.Result again = cli.run("schedule", "remove", "reports", "nightly");
        assertThat(again.exit()).isEqualTo(Exit.FAILED);
        assertThat(again.err()).isEqualTo("delayq: no schedule 'nightly' in queue 'reports'\n");
        assertThat(cli.run("job", "reports", id).exit()).as("the pending tick was cancelled").isEqualTo(Exit.FAILED);
        assertThat(cli.run("schedule", "list", "reports").lines()).hasSize(2);
    }

    @Test
    void badInputExitsTwoWithWhatIsAllowedAndNoStackTrace() {
        Cli cli = new Cli(REDIS.uri(), REDIS.prefix());
        String[][] cases = {
                {"--cron", "61 * * * *"},
                {"--cron", "* * * *"},
                {"--cron", "* * * * *", "--zone", "Mars/Olympus"},
                {"--every", "500ms"},
                {"--every", "0s"},
                {"--every", "1m", "--zone", "UTC"},
                {"--every", "1m", "--missed", "sometimes"},
                {"--every", "1m", "--start", "2026-02-01T00:00:00Z", "--end", "2026-01-01T00:00:00Z"},
                {"--every", "1m", "--max-attempts", "-2"},
        };
        String[] expected = {"'61 * * * *' is invalid", "has 4 fields: use 5", "--zone 'Mars/Olympus' is not a time zone",
                "use 1s to 100 years", "use 1s to 100 years", "--zone is for --cron", "--missed 'sometimes' is invalid: use skip, once or all",
                "is not after its start", "max attempts"};
        for (int i = 0; i < cases.length; i++) {
            String[] args = new String[4 + cases[i].length];
            args[0] = "schedule";
            args[1] = "add";
            args[2] = "bad";
            args[3] = "s";
            System.arraycopy(cases[i], 0, args, 4, cases[i].length);
            Cli.Result r = cli.run(args);
            assertThat(r.exit()).as(String.join(" ", args) + ": " + r.err()).isEqualTo(Exit.USAGE);
            assertThat(r.err()).startsWith("delayq: ").contains(expected[i]).doesNotContain("\tat ");
        }
        Cli.Result at = cli.run("schedule", "add", "bad", "a@b", "--every", "1m");
        assertThat(at.exit()).isEqualTo(Exit.USAGE);
        assertThat(at.err()).contains("contains '@'");
        Cli.Result both = cli.run("schedule", "add", "bad", "s", "--every", "1m", "--cron", "* * * * *");
        assertThat(both.exit()).isEqualTo(Exit.USAGE);
        Cli.Result none = cli.run("schedule", "add", "bad", "s");
        assertThat(none.exit()).isEqualTo(Exit.USAGE);
        assertThat(cli.run("schedule", "list", "bad").lines()).hasSize(1);
    }

    @Test
    void scheduleAddAndEnqueueShareTheCoresRulesForMaxAttemptsNamesAndTimeouts() {
        Cli cli = new Cli(REDIS.uri(), REDIS.prefix());
        assertThat(cli.run("enqueue", "rules", "--id", "a", "--delay", "1h").exit()).isZero();
        // Max attempts: 1 to 1000000 in both; 0 (the library's "not set") refused in both: leave the option out.
        Cli.Result enqueueZero = cli.run("enqueue", "rules", "--max-attempts", "0");
        Cli.Result scheduleZero = cli.run("schedule", "add", "rules", "s", "--every", "1m", "--max-attempts", "0");
        assertThat(scheduleZero.exit()).isEqualTo(Exit.USAGE).isEqualTo(enqueueZero.exit());
        assertThat(scheduleZero.err()).isEqualTo("delayq: max attempts is 0: it must be between 1 and 1000000\n")
                .isEqualTo(enqueueZero.err());
        assertThat(cli.run("schedule", "add", "rules", "s", "--every", "1m", "--max-attempts", "1000001").err())
                .isEqualTo(cli.run("enqueue", "rules", "--max-attempts", "1000001").err())
                .isEqualTo("delayq: max attempts is 1000001: it must be between 1 and 1000000\n");

        // Names: not blank, no blank at either end (a listing would show nothing, or another name).
        Cli.Result blank = cli.run("schedule", "add", "rules", "   ", "--every", "1m");
        assertThat(blank.exit()).isEqualTo(Exit.USAGE);
        assertThat(blank.err()).isEqualTo("delayq: schedule name '   ' is blank: use 1-128 bytes of text that start and "
                + "end with a visible character\n");
        Cli.Result edged = cli.run("schedule", "add", "rules", "nightly ", "--cron", "0 3 * * *");
        assertThat(edged.exit()).isEqualTo(Exit.USAGE);
        assertThat(edged.err()).isEqualTo("delayq: schedule name 'nightly ' ends with a blank: use 1-128 bytes of text that "
                + "start and end with a visible character (blanks inside are allowed)\n");
        assertThat(cli.run("schedule", "add", "rules", " lead", "--every", "1m").exit()).isEqualTo(Exit.USAGE);
        assertThat(cli.run("schedule", "list", "rules").lines()).hasSize(1); // the header: nothing was stored
        Cli.Result inner = cli.run("schedule", "add", "rules", "nightly report", "--every", "1m", "--max-attempts", "3");
        assertThat(inner.exit()).as(inner.err()).isZero();

        // Job timeouts: one bound, 1ms to 1d, for a job's own and for the worker's.
        Cli.Result enqueueLong = cli.run("enqueue", "rules", "--job-timeout", "2d");
        assertThat(enqueueLong.exit()).isEqualTo(Exit.USAGE);
        assertThat(enqueueLong.err()).isEqualTo("delayq: --job-timeout is 2d: it must be between 1ms and 1d\n");
        Cli.Result workLong = cli.run("work", "rules", "--exec", "true", "--job-timeout", "2d");
        assertThat(workLong.exit()).isEqualTo(Exit.USAGE);
        assertThat(workLong.err()).isEqualTo(enqueueLong.err());
        assertThat(cli.run("enqueue", "rules", "--id", "day", "--job-timeout", "1d").exit()).isZero();
    }

    @Test
    void pauseAndResumeSayWhatChangedAndStatsShowIt() throws Exception {
        Cli cli = new Cli(REDIS.uri(), REDIS.prefix());
        assertThat(cli.run("enqueue", "pq", "--id", "a").exit()).isZero();
        Cli.Result pause = cli.run("pause", "pq");
        assertThat(pause.exit()).as(pause.err()).isZero();
        assertThat(pause.out()).isEqualTo("paused pq\n");
        assertThat(cli.run("pause", "pq").out()).isEqualTo("already paused pq\n");
        assertThat(Json.MAPPER.readTree(cli.run("--json", "stats", "pq").out()).get("paused").asBoolean()).isTrue();
        try (DelayQ dq = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).build()) {
            JobQueue q = dq.queue("pq");
            assertThat(q.leases().claim(dev.delayq.ClaimOptions.of(1, java.time.Duration.ofMinutes(1))).jobs()).isEmpty();
            JsonNode resume = Json.MAPPER.readTree(cli.run("--json", "resume", "pq").out());
            assertThat(resume.get("paused").asBoolean()).isFalse();
            assertThat(resume.get("changed").asBoolean()).isTrue();
            assertThat(cli.run("resume", "pq").out()).isEqualTo("already resumed pq\n");
            assertThat(q.leases().claim(dev.delayq.ClaimOptions.of(1, java.time.Duration.ofMinutes(1))).jobs())
                    .extracting(j -> j.id()).containsExactly("a");
        }
        assertThat(Json.MAPPER.readTree(cli.run("--json", "stats", "pq").out()).get("paused").asBoolean()).isFalse();
    }

    @Test
    void schedulePauseAndResumeChangeItAndAnUnknownScheduleExitsTwo() throws Exception {
        Cli cli = new Cli(REDIS.uri(), REDIS.prefix());
        assertThat(cli.run("schedule", "add", "sp", "ping", "--every", "1m").exit()).isZero();
        String pending = Json.MAPPER.readTree(cli.run("--json", "schedule", "list", "sp").out()).get("nextTickId").asText();

        Cli.Result pause = cli.run("schedule", "pause", "sp", "ping");
        assertThat(pause.exit()).as(pause.err()).isZero();
        assertThat(pause.out()).isEqualTo("paused ping\n");
        assertThat(cli.run("schedule", "pause", "sp", "ping").out()).isEqualTo("already paused ping\n");
        assertThat(cli.run("job", "sp", pending).exit()).as("the pending tick was cancelled").isEqualTo(Exit.FAILED);
        Cli.Result list = cli.run("schedule", "list", "sp");
        assertThat(list.lines().get(1)).startsWith("ping").contains("paused");
        JsonNode paused = Json.MAPPER.readTree(cli.run("--json", "schedule", "list", "sp").out());
        assertThat(paused.get("paused").asBoolean()).isTrue();
        assertThat(paused.get("nextTick").isNull()).isTrue();

        JsonNode resume = Json.MAPPER.readTree(cli.run("--json", "schedule", "resume", "sp", "ping").out());
        assertThat(resume.get("paused").asBoolean()).isFalse();
        assertThat(resume.get("changed").asBoolean()).isTrue();
        assertThat(cli.run("job", "sp", resume.get("nextTickId").asText()).exit()).as("a new tick enqueued").isZero();
        assertThat(cli.run("schedule", "resume", "sp", "ping").out()).isEqualTo("already resumed ping\n");

        for (String verb : new String[] {"pause", "resume"}) {
            Cli.Result unknown = cli.run("schedule", verb, "sp", "nope");
            assertThat(unknown.exit()).isEqualTo(Exit.USAGE);
            assertThat(unknown.err()).isEqualTo("delayq: no schedule 'nope' in queue 'sp': 'delayq schedule list sp' shows "
                    + "its schedules\n");
        }
        assertThat(cli.run("schedule", "pause", "sp", "a@b").err()).contains("contains '@'");
    }
}
