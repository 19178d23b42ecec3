package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.ClaimOptions;
import dev.delayq.ClaimedJob;
import dev.delayq.DelayQ;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Flows on the command line (docs/flows.md): enqueue --after / --on-parent-dead, and what stats, list and job show. */
class ParentsCommandsTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private Cli cli;
    private DelayQ dq;
    private JobQueue q;

    @BeforeEach
    void connect() {
        cli = new Cli(REDIS.uri(), REDIS.prefix());
        dq = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).build();
        q = dq.queue("flows");
    }

    @AfterEach
    void close() {
        dq.close();
    }

    private List<ClaimedJob> claim() {
        return q.leases().claim(ClaimOptions.of(100, Duration.ofSeconds(30))).jobs();
    }

    @Test
    void aChildEnqueuedAfterItsParentsWaitsAndShowsItsCounts() throws Exception {
        assertThat(cli.run("enqueue", "flows", "--id", "p1").exit()).isZero();
        assertThat(cli.run("enqueue", "flows", "--id", "p2").exit()).isZero();
        Cli.Result r = cli.run("enqueue", "flows", "--id", "c", "--after", "p1,p2");
        assertThat(r.exit()).isZero();
        assertThat(r.out()).isEqualTo("created c\n");

        JsonNode stats = Json.MAPPER.readTree(cli.run("--json", "stats", "flows").out());
        assertThat(stats.get("waiting").asLong()).isEqualTo(1);
        assertThat(stats.get("scheduled").asLong()).isEqualTo(2);
        assertThat(cli.run("stats", "flows").out()).contains("waiting     1 (for their parents)");

        Cli.Result list = cli.run("list", "flows", "--state", "waiting");
        assertThat(list.exit()).isZero();
        assertThat(list.out()).contains("ENQUEUED").contains("c ").contains("waiting");
        assertThat(Json.MAPPER.readTree(cli.run("--json", "list", "flows", "--state", "waiting").out()).get("id").asText())
                .isEqualTo("c");

        claim().stream().filter(j -> j.id().equals("p1")).forEach(j -> q.leases().complete(j.lease()));
        JsonNode job = Json.MAPPER.readTree(cli.run("--json", "job", "flows", "c").out());
        assertThat(job.get("state").asText()).isEqualTo("waiting");
        JsonNode parents = job.get("parents");
        assertThat(parents.get("done").asInt()).isEqualTo(1);
        assertThat(parents.get("dead").asInt()).isZero();
        assertThat(parents.get("pending").asInt()).isEqualTo(1);
        assertThat(parents.get("onParentDead").asText()).isEqualTo("dead");
        JsonNode parent = Json.MAPPER.readTree(cli.run("--json", "job", "flows", "p2").out());
        assertThat(parent.get("children").get("waiting").asInt()).isEqualTo(1);
        assertThat(parent.has("parents")).isFalse();
    }

    @Test
    void anUnknownParentIsAUsageError() {
        cli.run("enqueue", "flows", "--id", "p1");
        Cli.Result r = cli.run("enqueue", "flows", "--id", "c", "--after", "p1,P9");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("delayq: unknown parent P9\n");
        assertThat(q.get("c")).isEmpty();
    }

    @Test
    void parentsInAnotherQueueAreNamedQueueSlashIdAndCountedByJob() throws Exception {
        JobQueue pay = dq.queue("pay:eu");
        assertThat(cli.run("enqueue", "pay:eu", "--id", "p7:a").exit()).isZero();
        cli.run("enqueue", "flows", "--id", "p1");
        Cli.Result r = cli.run("enqueue", "flows", "--id", "c", "--after", "p1", "--after-in", "pay:eu/p7:a");
        assertThat(r.exit()).isZero();
        assertThat(r.out()).isEqualTo("created c\n");
        JsonNode parents = Json.MAPPER.readTree(cli.run("--json", "job", "flows", "c").out()).get("parents");
        assertThat(parents.get("pending").asInt()).isEqualTo(2);
        assertThat(Json.MAPPER.readTree(cli.run("--json", "job", "pay:eu", "p7:a").out()).get("children").get("waiting")
                .asInt()).isEqualTo(1);
        assertThat(cli.run("check", "flows").exit()).isZero();
        assertThat(pay.get("p7:a")).isPresent();

        Cli.Result unknown = cli.run("enqueue", "flows", "--id", "d", "--after-in", "pay:eu/P9");
        assertThat(unknown.exit()).isEqualTo(2);
        assertThat(unknown.err()).isEqualTo("delayq: unknown parent P9 (in queue pay:eu)\n");
        assertThat(q.get("d")).isEmpty();
        Cli.Result malformed = cli.run("enqueue", "flows", "--id", "d", "--after-in", "P9");
        assertThat(malformed.exit()).isEqualTo(2);
        assertThat(malformed.err()).contains("must be written QUEUE/ID");
    }

    @Test
    void onParentDeadIgnoreRunsTheChildAfterAFailedParent() {
        cli.run("enqueue", "flows", "--id", "p1");
        assertThat(cli.run("enqueue", "flows", "--id", "cb", "--after", "p1", "--on-parent-dead", "ignore").exit()).isZero();
        ClaimedJob p1 = claim().get(0);
        q.leases().fail(p1.lease(), "boom", false, Duration.ZERO);
        assertThat(q.get("cb").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);

        cli.run("enqueue", "flows", "--id", "p2");
        cli.run("enqueue", "flows", "--id", "c2", "--after", "p2");
        assertThat(cli.run("cancel", "flows", "p2").exit()).isZero();
        assertThat(q.get("c2").orElseThrow().lastError()).isEqualTo("parent p2 is dead");
    }

    @Test
    void badPolicyAndPartitionedQueuesAreRefused() {
        cli.run("enqueue", "flows", "--id", "p1");
        Cli.Result bad = cli.run("enqueue", "flows", "--id", "c", "--after", "p1", "--on-parent-dead", "retry");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).isEqualTo("delayq: --on-parent-dead is 'retry': use dead (the default) or ignore\n");
        dq.queue("parted", 4);
        Cli.Result parted = cli.run("enqueue", "parted", "--id", "c", "--after", "p1");
        assertThat(parted.exit()).isEqualTo(2);
        assertThat(parted.err()).contains("after(...) needs a queue without partitions").contains("--after-in parted/ID");
    }
}
