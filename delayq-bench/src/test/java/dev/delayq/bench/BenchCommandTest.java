package dev.delayq.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.ClaimBatch;
import dev.delayq.ClaimOptions;
import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobInfo;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.cli.Exit;
import dev.delayq.cli.Json;
import dev.delayq.testkit.RedisExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The bench command at a tiny scale: every workload runs and reports its keys (no timing is asserted), a run
 * against a given server leaves nothing behind and touches nothing else, and bad input is refused.
 */
class BenchCommandTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    /** The keys the command's contract names; each workload reports exactly its own subset of them. */
    private static final List<String> CONTRACT = List.of("workload", "enqueue_jobs_per_s", "drain_jobs_per_s",
            "lag_p50_ms", "lag_p99_ms", "lag_max_ms", "duplicates", "missing", "redis_cmds_per_s", "bytes_per_job", "reps");
    private static final Map<String, Set<String>> MEASURED = Map.of(
            "w1", Set.of("enqueue_jobs_per_s", "drain_jobs_per_s", "lag_p50_ms", "lag_p99_ms", "lag_max_ms", "duplicates", "missing"),
            "w2", Set.of("lag_p50_ms", "lag_p99_ms", "lag_max_ms", "redis_cmds_per_s", "duplicates", "missing"),
            "w3", Set.of("redis_cmds_per_s"),
            "w4", Set.of("bytes_per_job"),
            "w5", Set.of("drain_jobs_per_s", "duplicates", "missing"),
            "w6", Set.of("drain_jobs_per_s", "lag_p99_ms", "duplicates", "missing"),
            "limit", Set.of());

    private record Result(int exit, String out, String err) {
        List<String> lines() {
            return out.isBlank() ? List.of() : Arrays.asList(out.strip().split("\n"));
        }
    }

    private static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = BenchMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void smokeRunOfEveryWorkloadOnItsOwnPrivateServerReportsTheContractKeys() throws Exception {
        Result r = run("bench", "--workload", "w1,w2,w3,w4,w5,w6,limit", "--reps", "1", "--scale", "0.02", "--json");

        assertThat(r.exit()).as(r.err()).isEqualTo(Exit.OK);
        assertThat(r.lines()).hasSize(7);
        List<String> names = new ArrayList<>();
        for (String line : r.lines()) {
            JsonNode node = Json.MAPPER.readTree(line);
            String workload = node.get("workload").asText();
            names.add(workload);
            for (String key : CONTRACT) {
                boolean expected = key.equals("workload") || key.equals("reps") || MEASURED.get(workload).contains(key);
                assertThat(node.has(key)).as(workload + " reports " + key).isEqualTo(expected);
                if (expected && !key.equals("workload")) {
                    assertThat(node.get(key).isNumber()).as(workload + " " + key + " is a number: " + line).isTrue();
                }
            }
            assertThat(node.get("reps").asInt()).isEqualTo(1);
            assertThat(node.get("server").asText()).isEqualTo("private");
            assertThat(node.get("redis").asText()).matches("\\d+\\.\\d+\\.\\d+");
        }
        assertThat(names).containsExactly("w1", "w2", "w3", "w4", "w5", "w6", "limit");
        JsonNode w1 = Json.MAPPER.readTree(r.lines().get(0));
        assertThat(w1.get("duplicates").asLong()).isZero();
        assertThat(w1.get("missing").asLong()).isZero();
        JsonNode w5 = Json.MAPPER.readTree(r.lines().get(4));
        assertThat(w5.has("drain_jobs_per_s_10k")).isTrue();
        assertThat(w5.has("scale_ratio")).isTrue();
        JsonNode w6 = Json.MAPPER.readTree(r.lines().get(5));
        for (String key : List.of("enqueue_mb_per_s", "drain_mb_per_s", "redis_cpu_us_per_job")) {
            assertThat(w6.get(key).isNumber()).as("w6 " + key + ": " + w6).isTrue();
        }
        assertThat(w6.get("duplicates").asLong()).isZero();
        assertThat(w6.get("missing").asLong()).isZero();
        JsonNode limit = Json.MAPPER.readTree(r.lines().get(6));
        assertThat(limit.get("limit_evalsha_per_s").isNumber()).isTrue();
        assertThat(limit.get("limit_jobs_per_s").isNumber()).isTrue();
        // Not a terminal: plain progress lines, never a carriage return.
        assertThat(r.err()).doesNotContain("\r").startsWith("delayq bench: [");
    }

    @Test
    void aGivenServerIsUsedUnderAUniquePrefixThatIsDeletedAndNothingElseIsTouched() throws Exception {
        String prefix = REDIS.prefix();
        // A queue of the user's own under the same prefix, and a key outside it: both must survive.
        try (DelayQ dq = DelayQ.builder().redis(REDIS.uri()).prefix(prefix).build()) {
            dq.queue("orders").enqueue(Job.builder().id("order-1").delay(Duration.ofHours(1)).build());
        }
        REDIS.server().call("SET", "keep-" + prefix, "1");

        // The last workload leaves its jobs in place: only the final clean-up removes them.
        Result r = run("bench", "--workload", "limit,w1,w5,w4", "--reps", "2", "--scale", "0.01",
                "--redis", REDIS.uri(), "--prefix", prefix);

        assertThat(r.exit()).as(r.err()).isEqualTo(Exit.OK);
        assertThat(r.out()).contains("delayq bench — ").contains("Java " + System.getProperty("java.version"))
                .contains("at 127.0.0.1:" + REDIS.server().port()).contains("reps 2");
        assertThat(r.out()).containsPattern("w1 +enqueue jobs/s").containsPattern("w4 +Redis bytes/job")
                .containsPattern("w5 +per-rep ratio").containsPattern("limit +minimal claim jobs/s");
        assertThat(keys(prefix + ":bench:*")).isEmpty();
        assertThat(keys(prefix + "*")).containsExactlyInAnyOrder(prefix + ":queues", prefix + ":{orders}:jobs",
                prefix + ":{orders}:due", prefix + ":{orders}:meta", prefix + ":{orders}:history", prefix + ":{orders}:config");
        assertThat(REDIS.server().call("GET", "keep-" + prefix)).isEqualTo("1");
    }

    @SuppressWarnings("unchecked")
    private static List<String> keys(String pattern) {
        return (List<String>) REDIS.server().call("KEYS", pattern);
    }

    @Test
    void clusterRunPutsW1OnAPrivateClusterBesideW1OnASingleNode() throws Exception {
        Result r = run("bench", "--cluster", "--reps", "1", "--scale", "0.02", "--json");
        assertThat(r.exit()).as(r.err()).isEqualTo(Exit.OK);
        assertThat(r.lines()).hasSize(2);
        JsonNode single = Json.MAPPER.readTree(r.lines().get(0));
        JsonNode cluster = Json.MAPPER.readTree(r.lines().get(1));
        assertThat(single.get("workload").asText()).isEqualTo("w1");
        assertThat(cluster.get("workload").asText()).isEqualTo("w1-cluster");
        for (JsonNode n : List.of(single, cluster)) {
            assertThat(n.get("duplicates").asLong()).isZero();
            assertThat(n.get("missing").asLong()).isZero();
            assertThat(n.get("drain_jobs_per_s").isNumber()).isTrue();
            assertThat(n.get("redis_cpu_us_per_job").isNumber()).isTrue();
        }
        assertThat(cluster.get("partitions").asInt()).isEqualTo(6);

        Result wrong = run("bench", "--cluster", "--workload", "w2");
        assertThat(wrong.exit()).isEqualTo(Exit.USAGE);
        assertThat(wrong.err()).contains("bench --cluster runs w1 only");
    }

    @Test
    void theDoneRetentionReachesTheWorkersClientAndTheReport() throws Exception {
        // A job completed through a bench client is kept done for the retention given, or deleted at once with 0s.
        for (Duration retention : List.of(Duration.ZERO, Duration.ofHours(1))) {
            BenchConfig config = new BenchConfig(1, 1, 1, Duration.ZERO, 1.0, Duration.ofSeconds(10), false, 1, retention, false);
            try (BenchTarget target = BenchTarget.privateServer("dq", config.timeout());
                 DelayQ client = target.client(config, "test")) {
                JobQueue q = client.queue("q");
                q.enqueue(Job.builder().id("j").build());
                ClaimBatch batch = q.leases().claim(ClaimOptions.of(1, Duration.ofSeconds(30)));
                assertThat(batch.jobs()).hasSize(1);
                q.leases().complete(batch.jobs().get(0).lease());
                Optional<JobState> state = q.get("j").map(JobInfo::state);
                assertThat(state).as("retention " + retention)
                        .isEqualTo(retention.isZero() ? Optional.empty() : Optional.of(JobState.DONE));
            }
        }

        Result json = run("bench", "--workload", "w1", "--reps", "1", "--scale", "0.01", "--done-retention", "0s", "--json");
        assertThat(json.exit()).as(json.err()).isEqualTo(Exit.OK);
        JsonNode w1 = Json.MAPPER.readTree(json.lines().get(0));
        assertThat(w1.get("done_retention_ms").asLong()).isZero();
        assertThat(w1.get("duplicates").asLong()).isZero();
        assertThat(w1.get("missing").asLong()).isZero();
        Result table = run("bench", "--workload", "w4", "--reps", "1", "--scale", "0.01");
        assertThat(table.exit()).as(table.err()).isEqualTo(Exit.OK);
        assertThat(table.out()).contains(", done retention 1h,");
    }

    @Test
    void traceMakesTheClientsTraceAndTheReportSaySo() throws Exception {
        // A job enqueued through a traced bench client carries the context of the enqueue's span.
        BenchConfig config = new BenchConfig(1, 1, 1, Duration.ZERO, 1.0, Duration.ofSeconds(10), false, 1,
                Duration.ofHours(1), false, true);
        try (BenchTarget target = BenchTarget.privateServer("dq", config.timeout());
             DelayQ client = target.client(config, "test")) {
            JobQueue q = client.queue("q");
            q.enqueue(Job.builder().id("j").build());
            assertThat(q.get("j").orElseThrow().traceparent()).startsWith("00-");
        } finally {
            BenchTracing.close();
        }
        Result json = run("bench", "--workload", "w1", "--reps", "1", "--scale", "0.01", "--trace", "--json");
        assertThat(json.exit()).as(json.err()).isEqualTo(Exit.OK);
        JsonNode w1 = Json.MAPPER.readTree(json.lines().get(0));
        assertThat(w1.get("trace").asBoolean()).isTrue();
        assertThat(w1.get("duplicates").asLong()).isZero();
        assertThat(w1.get("missing").asLong()).isZero();
    }

    @Test
    void warmUpRepetitionsRunBeforeTheMeasuredOnesOfTheTimedWorkloadsOnly() throws Exception {
        Result r = run("bench", "--workload", "w2,w3", "--reps", "1", "--warmup", "2", "--scale", "0.02", "--json");
        assertThat(r.exit()).as(r.err()).isEqualTo(Exit.OK);
        JsonNode w2 = Json.MAPPER.readTree(r.lines().get(0));
        JsonNode w3 = Json.MAPPER.readTree(r.lines().get(1));
        assertThat(w2.get("warmup_reps").asInt()).isEqualTo(2);
        assertThat(w2.get("reps").asInt()).isEqualTo(1);
        assertThat(w2.get("lag_p99_ms_reps").size()).isEqualTo(1);
        assertThat(w3.get("warmup_reps").asInt()).isZero();
    }

    @Test
    void badInputExitsTwoNamingWhatIsAllowed() {
        Result w9 = run("bench", "--workload", "w1,w9");
        assertThat(w9.exit()).isEqualTo(Exit.USAGE);
        assertThat(w9.err().strip()).isEqualTo("delayq: unknown workload 'w9': valid workloads are w1, w2, w3, w4, w5, w6, limit");
        assertThat(w9.out()).isEmpty();

        Result reps = run("bench", "--reps", "0");
        assertThat(reps.exit()).isEqualTo(Exit.USAGE);
        assertThat(reps.err()).contains("--reps is 0: it must be 1 to 100");

        Result scale = run("bench", "--scale", "0");
        assertThat(scale.exit()).isEqualTo(Exit.USAGE);
        assertThat(scale.err()).contains("--scale is 0.0");

        Result warmup = run("bench", "--warmup", "11");
        assertThat(warmup.exit()).isEqualTo(Exit.USAGE);
        assertThat(warmup.err()).contains("--warmup is 11: it must be 0 to 10");

        Result retention = run("bench", "--done-retention", "soon");
        assertThat(retention.exit()).isEqualTo(Exit.USAGE);
        assertThat(retention.err()).contains("--done-retention").contains("'soon'");
    }
}
