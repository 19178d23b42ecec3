package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.ClaimOptions;
import dev.delayq.ClaimedJob;
import dev.delayq.DelayQ;
import dev.delayq.JobInfo;
import dev.delayq.JobState;
import dev.delayq.JobQueue;
import dev.delayq.testkit.RedisExtension;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class EnqueueCommandTest {
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
        q = dq.queue("orders");
    }

    @AfterEach
    void close() {
        dq.close();
    }

    @Test
    void groupOptionAndJsonlKeyStoreTheGroupAndABadOneExits2WithTheRule() throws IOException {
        Cli.Result r = cli.run("enqueue", "orders", "--id", "g1", "--group", "tenant-42");
        assertThat(r.exit()).isZero();
        assertThat(q.get("g1").orElseThrow().group()).isEqualTo("tenant-42");
        Cli.Result bad = cli.run("enqueue", "orders", "--id", "g2", "--group", "a b");
        assertThat(bad.exit()).isEqualTo(Exit.USAGE);
        assertThat(bad.err()).isEqualTo("delayq: group 'a b' is invalid: use 1-128 characters: letters, digits and "
                + ". _ - : @ / + =\n");
        Path file = dir.resolve("groups.jsonl");
        Files.writeString(file, "{\"id\": \"j1\", \"group\": \"t1\"}\n{\"id\": \"j2\", \"group\": \"\"}\n");
        Cli.Result lines = cli.run("enqueue", "orders", "--jsonl", file.toString());
        assertThat(lines.out()).startsWith("created j1\nerror 2 group '' is invalid");
        assertThat(q.get("j1").orElseThrow().group()).isEqualTo("t1");
        Cli.Result job = cli.run("job", "orders", "g1", "--json");
        assertThat(job.out()).contains("\"group\":\"tenant-42\"");
        Cli.Result stats = cli.run("stats", "orders", "--json");
        assertThat(stats.out()).contains("\"groups\":2");
    }

    @Test
    void enqueuePrintsCreatedThenDuplicateAndStoresEveryOption() {
        Cli.Result first = cli.run("enqueue", "orders", "--id", "order-1:timeout", "--delay", "30m",
                "--payload", "{\"order\":1}", "--max-attempts", "3");
        assertThat(first.exit()).isZero();
        assertThat(first.out()).isEqualTo("created order-1:timeout\n");

        Cli.Result again = cli.run("enqueue", "orders", "--id", "order-1:timeout", "--payload", "other");
        assertThat(again.exit()).isZero();
        assertThat(again.out()).isEqualTo("duplicate order-1:timeout\n");

        JobInfo job = q.get("order-1:timeout").orElseThrow();
        assertThat(job.payloadUtf8()).isEqualTo("{\"order\":1}");
        assertThat(job.maxAttempts()).isEqualTo(3);
        assertThat(job.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(Duration.between(Instant.now(), job.dueAt())).isBetween(Duration.ofMinutes(29), Duration.ofMinutes(31));
    }

    @Test
    void generatedIdsAtInstantsAndJsonOutput() throws Exception {
        Cli.Result r = cli.run("--json", "enqueue", "orders", "--at", "2030-01-02T03:04:05Z", "--payload", "x");
        assertThat(r.exit()).isZero();
        JsonNode node = Json.MAPPER.readTree(r.out());
        assertThat(node.get("result").asText()).isEqualTo("created");
        String id = node.get("id").asText();
        assertThat(id).isNotBlank();
        assertThat(q.get(id).orElseThrow().dueAt()).isEqualTo(Instant.parse("2030-01-02T03:04:05Z"));
    }

    @Test
    void dedupeKeyMakesALaterJobADuplicateNamingTheFirst() {
        assertThat(cli.run("enqueue", "orders", "--id", "a", "--dedupe-key", "order-7", "--dedupe-ttl", "1h").out())
                .isEqualTo("created a\n");
        Cli.Result dup = cli.run("enqueue", "orders", "--id", "b", "--dedupe-key", "order-7", "--dedupe-ttl", "1h");
        assertThat(dup.exit()).isZero();
        assertThat(dup.out()).isEqualTo("duplicate a\n");
        assertThat(q.get("b")).isEmpty();

        Cli.Result half = cli.run("enqueue", "orders", "--dedupe-key", "k");
        assertThat(half.exit()).isEqualTo(Exit.USAGE);
        assertThat(half.err()).contains("--dedupe-ttl");
    }

    @Test
    void debounceModeReplacesTheScheduledJobAndPrintsReplaced() throws Exception {
        Cli.Result first = cli.run("enqueue", "orders", "--id", "a", "--payload", "v1", "--delay", "1h",
                "--dedupe-key", "search:7", "--dedupe-mode", "debounce");
        assertThat(first.out()).isEqualTo("created a\n");
        Cli.Result second = cli.run("enqueue", "orders", "--id", "b", "--payload", "v2", "--delay", "2h",
                "--dedupe-key", "search:7", "--dedupe-mode", "debounce", "--dedupe-ttl", "1h");
        assertThat(second.exit()).isZero();
        assertThat(second.out()).isEqualTo("replaced a\n");
        assertThat(q.get("a").orElseThrow().payloadUtf8()).isEqualTo("v2");
        assertThat(q.get("b")).isEmpty();
        JsonNode json = Json.MAPPER.readTree(cli.run("--json", "enqueue", "orders", "--payload", "v3",
                "--dedupe-key", "search:7", "--dedupe-mode", "debounce").out());
        assertThat(json.get("result").asText()).isEqualTo("replaced");
        assertThat(json.get("id").asText()).isEqualTo("a");
        assertThat(json.get("ownerState").asText()).isEqualTo("scheduled");
        // Throttle, said or not, is a duplicate.
        assertThat(cli.run("enqueue", "orders", "--payload", "v4", "--dedupe-key", "search:7", "--dedupe-ttl", "1h",
                "--dedupe-mode", "throttle").out()).isEqualTo("duplicate a\n");
        assertThat(q.get("a").orElseThrow().payloadUtf8()).isEqualTo("v3");

        Cli.Result noTtl = cli.run("enqueue", "orders", "--dedupe-key", "k", "--dedupe-mode", "throttle");
        assertThat(noTtl.exit()).isEqualTo(Exit.USAGE);
        assertThat(noTtl.err()).contains("--dedupe-ttl").contains("debounce");
        Cli.Result badMode = cli.run("enqueue", "orders", "--dedupe-key", "k", "--dedupe-mode", "bounce");
        assertThat(badMode.exit()).isEqualTo(Exit.USAGE);
        assertThat(badMode.err()).contains("--dedupe-mode is 'bounce': allowed are throttle and debounce");
        Cli.Result noKey = cli.run("enqueue", "orders", "--dedupe-mode", "debounce");
        assertThat(noKey.exit()).isEqualTo(Exit.USAGE);
        assertThat(noKey.err()).contains("--dedupe-key");

        // JSON Lines: the mode per line; two lines of one key, the second replaces the first.
        String input = "{\"id\":\"j1\",\"dedupeKey\":\"d\",\"dedupeMode\":\"debounce\",\"payload\":\"x\",\"delay\":\"1h\"}\n"
                + "{\"id\":\"j2\",\"dedupeKey\":\"d\",\"dedupeMode\":\"debounce\",\"payload\":\"y\"}\n"
                + "{\"id\":\"j3\",\"dedupeKey\":\"e\"}\n"
                + "{\"id\":\"j4\",\"dedupeMode\":\"debounce\"}\n"
                + "{\"id\":\"j5\",\"dedupeKey\":\"f\",\"dedupeMode\":\"later\"}\n";
        Cli.Result lines = cli.run(new java.io.ByteArrayInputStream(input.getBytes(java.nio.charset.StandardCharsets.UTF_8)), "enqueue", "orders", "--jsonl", "-");
        assertThat(lines.exit()).isEqualTo(Exit.FAILED);
        assertThat(lines.lines()).containsExactly("created j1", "replaced j1 requested=j2",
                "error 3 dedupeKey needs a dedupeTtl", "error 4 dedupeMode needs a dedupeKey",
                "error 5 dedupeMode is 'later': allowed are throttle and debounce");
        assertThat(q.get("j1").orElseThrow().payloadUtf8()).isEqualTo("y");
    }

    @Test
    void payloadFromStdinAndFromAFileArrivesByteExact() throws IOException {
        byte[] binary = new byte[256 * 4];
        for (int i = 0; i < binary.length; i++) {
            binary[i] = (byte) i; // every byte value, including NUL, CR, LF and invalid UTF-8
        }
        Cli.Result stdin = cli.run(new ByteArrayInputStream(binary), "enqueue", "orders", "--id", "s", "--payload", "-");
        assertThat(stdin.exit()).isZero();
        assertThat(q.get("s").orElseThrow().payload()).isEqualTo(binary);

        Path file = Files.write(dir.resolve("payload.bin"), binary);
        Cli.Result fromFile = cli.run("enqueue", "orders", "--id", "f", "--payload-file", file.toString());
        assertThat(fromFile.exit()).isZero();
        assertThat(q.get("f").orElseThrow().payload()).isEqualTo(binary);

        Cli.Result missing = cli.run("enqueue", "orders", "--payload-file", dir.resolve("nope").toString());
        assertThat(missing.exit()).isEqualTo(Exit.USAGE);
        assertThat(missing.err().strip()).isEqualTo("delayq: cannot read payload file '" + dir.resolve("nope") + "': no such file");
    }

    @Test
    void invalidInputIsOneLineWithExitTwo() {
        Cli.Result badDelay = cli.run("enqueue", "orders", "--delay", "soon");
        assertThat(badDelay.exit()).isEqualTo(Exit.USAGE);
        assertThat(badDelay.err()).startsWith("delayq: Invalid value for option '--delay': invalid duration 'soon'")
                .doesNotContain("\tat ");

        Cli.Result both = cli.run("enqueue", "orders", "--delay", "5s", "--at", "2030-01-01T00:00:00Z");
        assertThat(both.exit()).isEqualTo(Exit.USAGE);
        assertThat(both.err()).contains("mutually exclusive");

        Cli.Result attempts = cli.run("enqueue", "orders", "--max-attempts", "0");
        assertThat(attempts.exit()).isEqualTo(Exit.USAGE);
        assertThat(attempts.err().strip()).isEqualTo("delayq: max attempts is 0: it must be between 1 and 1000000");

        Cli.Result mixed = cli.run("enqueue", "orders", "--jsonl", "x.jsonl", "--id", "a");
        assertThat(mixed.exit()).isEqualTo(Exit.USAGE);
        assertThat(mixed.err()).contains("--jsonl takes every job from the file");
        assertThat(q.inspector().stats().scheduled()).isZero();
    }

    @Test
    void jsonlEnqueuesEveryGoodLineInOrderAndReportsBadLinesByNumber() throws IOException {
        List<String> lines = new ArrayList<>();
        for (int i = 1; i <= 1200; i++) { // more than two batches
            lines.add(switch (i) {
                case 17 -> "{\"id\":\"j17\",\"delay\":\"-5s\"}";                       // not a duration
                case 18 -> "{\"id\":\"j18\",\"delay\":\"-PT5S\"}";                     // negative: the job's own check
                case 19 -> "not json";
                case 20 -> "";                                                         // skipped
                case 21 -> "{\"id\":\"j21\",\"color\":\"red\"}";                       // unknown key
                case 22 -> "{\"id\":\"j22\",\"delay\":\"1s\",\"at\":\"2030-01-01T00:00:00Z\"}";
                case 23 -> "{\"id\":\"j23\",\"dedupeKey\":\"k\"}";
                case 24 -> "[1,2]";
                case 25 -> "{\"id\":\"j25\",\"at\":\"2030-01-01T00:00:00Z\",\"maxAttempts\":2,\"dedupeKey\":\"k25\",\"dedupeTtl\":\"1h\"}";
                case 26 -> "{\"id\":\"j1\",\"payload\":\"again\"}";                    // duplicate of line 1
                case 1000 -> "{\"id\":\"j1000\",\"delay\":\"P3650000D\"}";            // past year 9999: Redis refuses it
                default -> "{\"id\":\"j" + i + "\",\"payload\":\"p" + i + "\",\"delay\":\"1h\"}";
            });
        }
        Path file = dir.resolve("jobs.jsonl");
        Files.write(file, lines, StandardCharsets.UTF_8);

        Cli.Result r = cli.run("enqueue", "orders", "--jsonl", file.toString());

        assertThat(r.exit()).isEqualTo(Exit.FAILED);
        // One result line per input line, in input order, bad and blank lines included.
        List<String> out = r.lines();
        assertThat(out).hasSize(1200);
        for (int i = 1; i <= 1200; i++) {
            String line = out.get(i - 1);
            if (i == 26) {
                assertThat(line).isEqualTo("duplicate j1");
            } else if (i == 20) {
                assertThat(line).isEqualTo("skipped 20 blank line");
            } else if ((i >= 17 && i <= 24) || i == 1000) {
                assertThat(line).startsWith("error " + i + " ");
            } else {
                assertThat(line).isEqualTo("created j" + i);
            }
        }
        assertThat(out.get(16)).startsWith("error 17 delay: invalid duration '-5s'");
        assertThat(out.get(17)).isEqualTo("error 18 delay is -5s: it must be zero or positive");
        assertThat(out.get(999)).startsWith("error 1000 ").contains("beyond year 9999").doesNotContain("PT");
        List<String> errors = List.of(r.err().split("\n"));
        assertThat(errors).hasSize(8);
        assertThat(errors.get(0)).startsWith("delayq: line 17: delay: invalid duration '-5s'");
        assertThat(errors.get(1)).isEqualTo("delayq: line 18: delay is -5s: it must be zero or positive");
        assertThat(errors.get(2)).startsWith("delayq: line 19: invalid JSON");
        assertThat(errors.get(3)).startsWith("delayq: line 21: unknown key 'color'");
        assertThat(errors.get(4)).isEqualTo("delayq: line 22: give either delay or at, not both");
        assertThat(errors.get(5)).isEqualTo("delayq: line 23: dedupeKey needs a dedupeTtl");
        assertThat(errors.get(6)).startsWith("delayq: line 24: expected a JSON object");
        assertThat(errors.get(7)).startsWith("delayq: line 1000: ").contains("beyond year 9999");

        assertThat(q.inspector().stats().scheduled()).isEqualTo(1200 - 10);
        assertThat(q.get("j1").orElseThrow().payloadUtf8()).isEqualTo("p1");
        JobInfo j25 = q.get("j25").orElseThrow();
        assertThat(j25.maxAttempts()).isEqualTo(2);
        assertThat(j25.dueAt()).isEqualTo(Instant.parse("2030-01-01T00:00:00Z"));
        assertThat(q.get("j17")).isEmpty();
        assertThat(q.get("j999")).isPresent();
        assertThat(q.get("j1001")).isPresent();
    }

    @Test
    void jsonlFromStdinWithJsonOutputAndAnUnreadableFile() throws Exception {
        String input = "{\"id\":\"a\",\"payload\":\"1\"}\n\n{\"id\":\"b\"}\n{\"id\":\"a\"}\n";
        Cli.Result r = cli.run(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)),
                "enqueue", "orders", "--jsonl", "-", "--json");
        assertThat(r.exit()).isZero();
        assertThat(r.lines()).containsExactly(
                "{\"line\":1,\"id\":\"a\",\"result\":\"created\",\"owner\":\"a\",\"error\":null,\"ownerState\":null,\"heldUntil\":null}",
                "{\"line\":2,\"id\":null,\"result\":\"skipped\",\"owner\":null,\"error\":null,\"ownerState\":null,\"heldUntil\":null}",
                "{\"line\":3,\"id\":\"b\",\"result\":\"created\",\"owner\":\"b\",\"error\":null,\"ownerState\":null,\"heldUntil\":null}",
                "{\"line\":4,\"id\":\"a\",\"result\":\"duplicate\",\"owner\":\"a\",\"error\":null,\"ownerState\":\"scheduled\",\"heldUntil\":null}");

        Cli.Result missing = cli.run("enqueue", "orders", "--jsonl", dir.resolve("missing.jsonl").toString());
        assertThat(missing.exit()).isEqualTo(Exit.USAGE);
        assertThat(missing.err().strip()).isEqualTo("delayq: cannot read '" + dir.resolve("missing.jsonl") + "': no such file");
    }

    @Test
    void jsonlNamesTheRequestedIdWhenADuplicateIsOwnedByAnother() throws Exception {
        String input = "{\"id\":\"j50\",\"dedupeKey\":\"k\",\"dedupeTtl\":\"1h\"}\n"
                + "{\"id\":\"j150\",\"dedupeKey\":\"k\",\"dedupeTtl\":\"1h\"}\n"
                + "{\"id\":\"j151\",\"delay\":\"soon\"}\n";
        Cli.Result text = cli.run(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)),
                "enqueue", "orders", "--jsonl", "-");
        assertThat(text.exit()).isEqualTo(Exit.FAILED);
        assertThat(text.lines()).containsExactly("created j50", "duplicate j50 requested=j150",
                "error 3 delay: invalid duration 'soon': use a number with ms, s, m, h or d (250ms, 30s, 5m, 2h, 7d, "
                        + "1h30m) or ISO-8601 (PT30S)");
        assertThat(text.err()).startsWith("delayq: line 3: delay: invalid duration 'soon'");

        Cli.Result json = cli.run(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)),
                "enqueue", "orders", "--jsonl", "-", "--json");
        assertThat(json.exit()).isEqualTo(Exit.FAILED);
        List<JsonNode> nodes = new ArrayList<>();
        for (String l : json.lines()) {
            nodes.add(Json.MAPPER.readTree(l));
        }
        assertThat(nodes).hasSize(3);
        assertThat(nodes.get(0).toString()).isEqualTo("{\"line\":1,\"id\":\"j50\",\"result\":\"duplicate\",\"owner\":\"j50\","
                + "\"error\":null,\"ownerState\":\"scheduled\",\"heldUntil\":null}");
        assertThat(nodes.get(1).toString()).isEqualTo("{\"line\":2,\"id\":\"j150\",\"result\":\"duplicate\",\"owner\":\"j50\","
                + "\"error\":null,\"ownerState\":\"scheduled\",\"heldUntil\":null}");
        assertThat(nodes.get(2).get("line").asInt()).isEqualTo(3);
        assertThat(nodes.get(2).get("id").asText()).isEqualTo("j151");
        assertThat(nodes.get(2).get("result").asText()).isEqualTo("error");
        assertThat(nodes.get(2).get("owner").isNull()).isTrue();
        assertThat(nodes.get(2).get("error").asText()).startsWith("delay: invalid duration 'soon'");
    }

    @Test
    void jsonlPrintsEachResultOnceRedisAcknowledgedItNotAtTheEnd() throws Exception {
        PipedOutputStream producer = new PipedOutputStream();
        PipedInputStream stdin = new PipedInputStream(producer, 1 << 16);
        Cli.Running run = cli.start(stdin, "enqueue", "orders", "--jsonl", "-");
        try {
            producer.write("{\"id\":\"first\"}\n".getBytes(StandardCharsets.UTF_8));
            producer.flush();
            // The input is still open: the first job must be sent and reported without waiting for more lines.
            await().atMost(Duration.ofSeconds(30)).until(() -> run.out().contains("created first\n"));
            assertThat(run.done()).isFalse();
            assertThat(q.get("first")).isPresent();
            producer.write("{\"id\":\"second\"}\n".getBytes(StandardCharsets.UTF_8));
        } finally {
            producer.close();
        }
        Cli.Result r = run.await(Duration.ofSeconds(60));
        assertThat(r.exit()).isZero();
        assertThat(r.lines()).containsExactly("created first", "created second");
    }

    /** Claims every due job and completes it. */
    private void completeDueJobs() {
        for (ClaimedJob j : q.leases().claim(ClaimOptions.of(100, Duration.ofMinutes(1))).jobs()) {
            q.leases().complete(j.lease());
        }
    }

    @Test
    void namesFromTheOptionAndFromJsonlAndJsonPayloadsStoredAsTheirJsonText() throws Exception {
        Cli.Result named = cli.run("enqueue", "orders", "--id", "n1", "--name", "email", "--payload", "hi");
        assertThat(named.exit()).isZero();
        assertThat(q.get("n1").orElseThrow().name()).isEqualTo("email");
        assertThat(q.get("n1").orElseThrow().payloadUtf8()).isEqualTo("hi");

        String input = String.join("\n",
                "{\"id\":\"obj\",\"name\":\"sms\",\"payload\": {\"a\": 1, \"b\": [true, null, \"x\"]}}",
                "{\"id\":\"arr\",\"payload\":[1, 2.50, \"z\"]}",
                "{\"id\":\"num\",\"payload\":1.50}",
                "{\"id\":\"big\",\"payload\":123456789012345678901234567890}",
                "{\"id\":\"bool\",\"payload\":false}",
                "{\"id\":\"str\",\"payload\":\"{\\\"a\\\": 1}\"}",
                "{\"id\":\"none\",\"name\":null,\"payload\":null}",
                "{\"id\":\"badname\",\"name\":5}",
                "{\"id\":\"emptyname\",\"name\":\"\"}") + "\n";
        Cli.Result r = cli.run(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), "enqueue", "orders",
                "--jsonl", "-");
        assertThat(r.exit()).isEqualTo(Exit.FAILED);
        assertThat(r.lines()).containsExactly("created obj", "created arr", "created num", "created big", "created bool",
                "created str", "created none", "error 8 name must be a string, got number",
                "error 9 job name must not be empty: use 1-128 bytes of UTF-8 text");
        JobInfo obj = q.get("obj").orElseThrow();
        assertThat(obj.name()).isEqualTo("sms");
        assertThat(obj.payloadUtf8()).isEqualTo("{\"a\":1,\"b\":[true,null,\"x\"]}");
        assertThat(q.get("arr").orElseThrow().payloadUtf8()).isEqualTo("[1,2.50,\"z\"]");
        assertThat(q.get("num").orElseThrow().payloadUtf8()).isEqualTo("1.50");
        assertThat(q.get("big").orElseThrow().payloadUtf8()).isEqualTo("123456789012345678901234567890");
        assertThat(q.get("bool").orElseThrow().payloadUtf8()).isEqualTo("false");
        assertThat(q.get("str").orElseThrow().payloadUtf8()).isEqualTo("{\"a\": 1}"); // a string: its text, as given
        JobInfo none = q.get("none").orElseThrow();
        assertThat(none.name()).isNull();
        assertThat(none.payload()).isEmpty();

        Cli.Result mixed = cli.run("enqueue", "orders", "--jsonl", "-", "--name", "x");
        assertThat(mixed.exit()).isEqualTo(Exit.USAGE);
        assertThat(mixed.err()).contains("--name");

        // A JSON payload over the limit is measured as the text stored.
        String big = "{\"id\":\"huge\",\"payload\":{\"k\":\"" + "y".repeat(600) + "\"}}\n";
        Cli.Result limited = cli.run(new ByteArrayInputStream(big.getBytes(StandardCharsets.UTF_8)), "enqueue", "orders",
                "--jsonl", "-", "--max-payload", "512");
        assertThat(limited.exit()).isEqualTo(Exit.FAILED);
        assertThat(limited.out()).startsWith("error 1 payload is 608 bytes: the payload limit is");
    }

    @Test
    void aDuplicateWhoseOwnerEndedOrIsGoneSaysSo() throws Exception {
        assertThat(cli.run("enqueue", "orders", "--id", "a", "--dedupe-key", "k", "--dedupe-ttl", "1h").out())
                .isEqualTo("created a\n");
        completeDueJobs();
        long heldMillis = q.get("a").orElseThrow().dedupeHeldUntilMillis();
        assertThat(heldMillis).isPositive();
        Instant held = Instant.ofEpochMilli(heldMillis);

        Cli.Result done = cli.run("enqueue", "orders", "--id", "b", "--dedupe-key", "k", "--dedupe-ttl", "1h");
        assertThat(done.exit()).isZero();
        assertThat(done.out()).isEqualTo("duplicate a (dedupe key held until " + held + " by done job a)\n");

        q.inspector().purge(Duration.ZERO); // the record goes, the dedupe key keeps holding for its TTL
        assertThat(q.get("a")).isEmpty();
        Cli.Result gone = cli.run("enqueue", "orders", "--id", "b", "--dedupe-key", "k", "--dedupe-ttl", "1h");
        assertThat(gone.out()).isEqualTo("duplicate a (dedupe key held until " + held + " by job a, which no longer exists)\n");

        JsonNode json = Json.MAPPER.readTree(cli.run("--json", "enqueue", "orders", "--id", "b", "--dedupe-key", "k",
                "--dedupe-ttl", "1h").out());
        assertThat(json.get("result").asText()).isEqualTo("duplicate");
        assertThat(json.get("id").asText()).isEqualTo("a");
        assertThat(json.get("ownerState").asText()).isEqualTo("gone");
        assertThat(Instant.parse(json.get("heldUntil").asText())).isEqualTo(held);

        String input = "{\"id\":\"c\",\"dedupeKey\":\"k\",\"dedupeTtl\":\"1h\"}\n{\"id\":\"x\"}\n{\"id\":\"x\"}\n";
        Cli.Result lines = cli.run(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), "enqueue", "orders",
                "--jsonl", "-");
        assertThat(lines.lines()).containsExactly(
                "duplicate a requested=c (dedupe key held until " + held + " by job a, which no longer exists)",
                "created x", "duplicate x");
        Cli.Result jsonLines = cli.run(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), "enqueue",
                "orders", "--jsonl", "-", "--json");
        JsonNode first = Json.MAPPER.readTree(jsonLines.lines().get(0));
        assertThat(first.get("owner").asText()).isEqualTo("a");
        assertThat(first.get("ownerState").asText()).isEqualTo("gone");
        assertThat(first.get("heldUntil").asText()).isEqualTo(held.toString());
        assertThat(Json.MAPPER.readTree(jsonLines.lines().get(1)).get("ownerState").asText()).isEqualTo("scheduled");

        // An id taken by a job that has finished: the line says the job is done.
        completeDueJobs();
        assertThat(cli.run("enqueue", "orders", "--id", "x").out()).isEqualTo("duplicate x (job x is done)\n");
    }
}
