package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.testkit.RedisExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Results through {@code work --exec} (docs/flows.md, "Results"): DELAYQ_RESULT_FILE, DELAYQ_PARENT_RESULTS_FILE, and
 * {@code job} showing the result.
 */
class WorkResultsTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    @TempDir
    Path dir;

    private Cli cli;
    private DelayQ dq;
    private JobQueue q;

    @BeforeEach
    void connect() {
        cli = new Cli(REDIS.uri(), REDIS.prefix());
        dq = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).build();
        q = dq.queue("res");
    }

    @AfterEach
    void close() {
        dq.close();
    }

    @Test
    void commandsLeaveResultsThatTheirChildAndTheJobCommandSee() throws Exception {
        q.enqueue(Job.builder().id("text").name("text").build());
        q.enqueue(Job.builder().id("bin").name("bin").build());
        q.enqueue(Job.builder().id("none").name("none").build());
        q.enqueue(Job.builder().id("child").name("child").after("text", "bin", "none").build());
        // Each command notes the path of its result file (deleted after the attempt) and its parents' file.
        String exec = "echo \"$DELAYQ_RESULT_FILE\" > " + dir + "/$DELAYQ_JOB_ID.path; "
                + "echo \"${DELAYQ_PARENT_RESULTS_FILE:-unset}\" > " + dir + "/$DELAYQ_JOB_ID.parents; "
                + "case $DELAYQ_JOB_NAME in "
                + "text) printf 'rows: 42' > \"$DELAYQ_RESULT_FILE\" ;; "
                + "bin) printf '\\000\\377\\001' > \"$DELAYQ_RESULT_FILE\" ;; "
                + "child) cp \"$DELAYQ_PARENT_RESULTS_FILE\" " + dir + "/child.json; printf done > \"$DELAYQ_RESULT_FILE\" ;; "
                + "esac";
        Cli.Result r = cli.run("work", "res", "--exec", exec, "--exit-when-idle", "2s");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(q.get("child").orElseThrow().state()).isEqualTo(JobState.DONE);

        JsonNode parents = Json.MAPPER.readTree(dir.resolve("child.json").toFile());
        assertThat(parents.get("text").asText()).isEqualTo("rows: 42");
        assertThat(Base64.getDecoder().decode(parents.get("bin").get("base64").asText())).containsExactly(0, 0xff, 1);
        assertThat(parents.has("none")).isFalse(); // it left no result
        assertThat(parents.size()).isEqualTo(2);
        assertThat(Files.readString(dir.resolve("text.parents")).trim()).isEqualTo("unset"); // no parents
        for (String id : new String[] {"text", "bin", "none", "child"}) {
            assertThat(Path.of(Files.readString(dir.resolve(id + ".path")).trim())).doesNotExist();
        }
        assertThat(Path.of(Files.readString(dir.resolve("child.parents")).trim())).doesNotExist();

        JsonNode text = Json.MAPPER.readTree(cli.run("job", "res", "text", "--json").out());
        assertThat(text.get("result").asText()).isEqualTo("rows: 42");
        assertThat(text.has("resultEncoding")).isFalse();
        JsonNode bin = Json.MAPPER.readTree(cli.run("job", "res", "bin", "--json").out());
        assertThat(bin.get("result").asText()).isEqualTo(Base64.getEncoder().encodeToString(new byte[] {0, -1, 1}));
        assertThat(bin.get("resultEncoding").asText()).isEqualTo("base64");
        assertThat(Json.MAPPER.readTree(cli.run("job", "res", "none", "--json").out()).has("result")).isFalse();
        assertThat(cli.run("job", "res", "child").out()).containsPattern("(?m)^result +done$");
    }

    @Test
    void aResultFileOverTheLimitFailsTheAttempt() {
        q.enqueue(Job.builder().id("big").build());
        Cli.Result r = cli.run("work", "res", "--exec", "head -c 65537 /dev/zero > \"$DELAYQ_RESULT_FILE\"",
                "--max-attempts", "1", "--exit-when-idle", "2s");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(q.get("big").orElseThrow().state()).isEqualTo(JobState.DEAD);
        assertThat(q.get("big").orElseThrow().lastError())
                .isEqualTo("exit 0, but the result file holds 65537 bytes: at most 65536 bytes (64 KiB) are kept");
        assertThat(q.get("big").orElseThrow().result()).isNull();
    }

    @Test
    void aLongResultIsPreviewedByTheJobCommand() throws Exception {
        q.enqueue(Job.builder().id("long").build());
        Cli.Result r = cli.run("work", "res", "--exec", "head -c 1000 /dev/zero | tr '\\0' x > \"$DELAYQ_RESULT_FILE\"",
                "--exit-when-idle", "2s");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(cli.run("job", "res", "long").out())
                .contains("result        " + "x".repeat(200) + " ... (1000 bytes: 'job --json' shows it whole)");
        assertThat(Json.MAPPER.readTree(cli.run("job", "res", "long", "--json").out()).get("result").asText())
                .hasSize(1000);
    }
}
