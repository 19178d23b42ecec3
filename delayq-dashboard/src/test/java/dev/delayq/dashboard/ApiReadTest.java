package dev.delayq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.ServerInfo;
import dev.delayq.testkit.RedisExtension;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The read routes of the API over real HTTP against a real Redis: 200, 400 and 404. */
class ApiReadTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    /** The keys of {@code delayq job --json}, which a job of the API carries too (one mapping: JobFields). */
    static final List<String> CLI_JOB_KEYS = List.of("id", "state", "attempt", "maxAttempts", "dueAt", "leaseUntil",
            "finishedAt", "token", "error", "payload", "payloadBase64", "payloadBytes", "payloadPreviewBytes",
            "payloadTruncated", "name", "enqueuedAt", "stalls", "dedupeKey", "dedupeHeldUntil", "corrupt", "priority",
            "progress", "allowed");

    private Served s;
    private JobQueue orders;

    @BeforeEach
    void start() {
        s = Served.withToken(REDIS.uri(), REDIS.prefix());
        orders = s.dq.queue("orders");
    }

    @AfterEach
    void stop() {
        s.close();
    }

    @Test
    void queuesListsEveryQueueWithItsCountsAndTotals() {
        Seed.scheduled(orders, "s1", "s2", "s3");
        Seed.dead(orders, "boom", "d1");
        Seed.processing(s.dq.queue("mail"), "m1");
        Seed.done(s.dq.queue("mail"), "m2");

        Http.Response r = s.http.get("/api/queues");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("Content-Type")).startsWith("application/json");
        JsonNode all = r.json();
        assertThat(all.isArray()).isTrue();
        assertThat(all).extracting(q -> q.get("name").asText()).containsExactly("mail", "orders");
        JsonNode o = all.get(1);
        assertThat(o.get("scheduled").asLong()).isEqualTo(3);
        assertThat(o.get("processing").asLong()).isZero();
        assertThat(o.get("done").asLong()).isZero();
        assertThat(o.get("dead").asLong()).isEqualTo(1);
        assertThat(o.get("totals").get("enqueued").asLong()).isEqualTo(4);
        assertThat(o.get("totals").get("dead").asLong()).isEqualTo(1);
        JsonNode m = all.get(0);
        assertThat(m.get("processing").asLong()).isEqualTo(1);
        assertThat(m.get("done").asLong()).isEqualTo(1);

        assertThat(o.get("paused").asBoolean()).isFalse();
        assertThat(Instant.parse(o.get("oldestDueAt").asText())).isAfter(s.dq.serverTime().plusSeconds(3000));
        assertThat(o.get("oldestDueLagMillis").asLong()).as("nothing due yet").isZero();
        assertThat(m.get("oldestDueAt").isNull()).as("nothing scheduled").isTrue();

        JsonNode one = s.http.get("/api/queues/orders").json();
        assertThat(one.get("name").asText()).isEqualTo("orders");
        // The keys of "delayq stats --json" too (one mapping): the queue's name also under "queue", and its limits.
        assertThat(one.get("queue").asText()).isEqualTo("orders");
        assertThat(one.has("rate") && one.has("concurrency") && one.has("events") && one.has("pastRetention")).isTrue();
        assertThat(one.get("scheduled").asLong()).isEqualTo(3);
    }

    @Test
    void anUnknownQueueIs404() {
        Seed.scheduled(orders, "s1");
        for (String path : List.of("/api/queues/nope", "/api/queues/nope/jobs", "/api/queues/nope/jobs/s1",
                "/api/queues/bad%20name!/jobs")) {
            Http.Response r = s.http.get(path);
            assertThat(r.status()).as(path).isEqualTo(404);
            assertThat(r.error()).as(path).startsWith("no queue '");
        }
    }

    @Test
    void jobsArePagedByStateWithTheTotal() {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            String id = "job-" + i;
            orders.enqueue(Job.builder().id(id).delay(Duration.ofMinutes(10 + i)).build());
            ids.add(id);
        }
        Seed.dead(orders, "boom", "d1", "d2");

        JsonNode first = s.http.get("/api/queues/orders/jobs?state=scheduled&offset=0&limit=5").json();
        assertThat(first.get("total").asLong()).isEqualTo(7);
        assertThat(first.get("jobs")).extracting(j -> j.get("id").asText()).containsExactlyElementsOf(ids.subList(0, 5));
        JsonNode second = s.http.get("/api/queues/orders/jobs?state=scheduled&offset=5&limit=5").json();
        assertThat(second.get("jobs")).extracting(j -> j.get("id").asText()).containsExactlyElementsOf(ids.subList(5, 7));
        JsonNode dead = s.http.get("/api/queues/orders/jobs?state=dead").json();
        assertThat(dead.get("total").asLong()).isEqualTo(2);
        assertThat(dead.get("jobs")).extracting(j -> j.get("state").asText()).containsOnly("dead");
        assertThat(dead.get("jobs")).extracting(j -> j.get("error").asText()).containsOnly("boom");
        JsonNode byDefault = s.http.get("/api/queues/orders/jobs").json();
        assertThat(byDefault.get("state").asText()).isEqualTo("scheduled");
        assertThat(byDefault.get("jobs")).hasSize(7);
        assertThat(s.http.get("/api/queues/orders/jobs?state=processing").json().get("total").asLong()).isZero();
    }

    /** ?state=ready, delayed, retrying: the scheduled jobs by state, with the count stats gives each. */
    @Test
    void jobsOfTheScheduledStatesAsStatsCountsThem() {
        orders.enqueue(dev.delayq.Job.builder().id("s1").build());
        orders.enqueue(dev.delayq.Job.builder().id("s2").build());
        Seed.scheduled(orders, "later"); // due in an hour
        var ready = s.http.get("/api/queues/orders/jobs?state=ready").json();
        assertThat(ready.get("state").asText()).isEqualTo("ready");
        assertThat(ready.get("total").asLong()).isEqualTo(2);
        assertThat(ready.get("jobs")).extracting(j -> j.get("id").asText()).containsExactly("s1", "s2");
        var delayed = s.http.get("/api/queues/orders/jobs?state=delayed&limit=10").json();
        assertThat(delayed.get("total").asLong()).isEqualTo(1);
        assertThat(delayed.get("jobs")).extracting(j -> j.get("id").asText()).containsExactly("later");
        assertThat(s.http.get("/api/queues/orders/jobs?state=retrying").json().get("jobs")).isEmpty();
        assertThat(s.http.get("/api/queues/orders/search?state=delayed&q=lat").json().get("jobs"))
                .extracting(j -> j.get("id").asText()).containsExactly("later");
    }

    @Test
    void badListParametersAre400NamingTheParameter() {
        Seed.scheduled(orders, "s1");
        assertThat(s.http.get("/api/queues/orders/jobs?state=finished").error())
                .isEqualTo("state is 'finished': use scheduled, processing, done, dead or waiting, or of the scheduled "
                        + "jobs ready, delayed or retrying");
        assertThat(s.http.get("/api/queues/orders/jobs?offset=-1").error()).startsWith("offset is '-1'");
        assertThat(s.http.get("/api/queues/orders/jobs?offset=x").error()).startsWith("offset is 'x'");
        assertThat(s.http.get("/api/queues/orders/jobs?limit=0").error()).isEqualTo(
                "limit is '0': it must be a whole number from 1 to 500");
        assertThat(s.http.get("/api/queues/orders/jobs?limit=501").status()).isEqualTo(400);
    }

    @Test
    void aJobHasEveryFieldOfTheCommandLinesJson() {
        Seed.dead(orders, "exit 3: first line\nsecond line", "d1");
        Http.Response r = s.http.get("/api/queues/orders/jobs/d1");
        assertThat(r.status()).isEqualTo(200);
        JsonNode j = r.json();
        List<String> keys = new ArrayList<>();
        j.fieldNames().forEachRemaining(keys::add);
        assertThat(keys).containsAll(CLI_JOB_KEYS);
        assertThat(j.get("id").asText()).isEqualTo("d1");
        assertThat(j.get("state").asText()).isEqualTo("dead");
        assertThat(j.get("attempt").asInt()).isEqualTo(1);
        assertThat(j.get("maxAttempts").isNull()).isTrue();
        assertThat(j.get("error").asText()).isEqualTo("exit 3: first line\nsecond line");
        assertThat(j.get("payload").asText()).isEqualTo("p-d1");
        assertThat(j.get("payloadBase64").asText()).isEqualTo(Base64.getEncoder().encodeToString("p-d1".getBytes()));
        assertThat(j.get("payloadBytes").asInt()).isEqualTo(4);
        assertThat(j.get("payloadTruncated").asBoolean()).isFalse();
        assertThat(j.get("token").asLong()).isPositive();
        assertThat(Instant.parse(j.get("finishedAt").asText())).isNotNull();
        assertThat(Instant.parse(j.get("dueAt").asText())).isNotNull();
        assertThat(j.get("leaseUntil").isNull()).isTrue();
        assertThat(j.get("stalls").asInt()).isZero();
        assertThat(j.get("corrupt").asBoolean()).isFalse();
        assertThat(Instant.parse(j.get("enqueuedAt").asText())).isBeforeOrEqualTo(s.dq.serverTime());
    }

    @Test
    void aRunningJobShowsItsPriorityAndProgress() {
        orders.enqueue(Job.builder().id("r1").priority(4).build());
        dev.delayq.ClaimedJob running = orders.leases().claim(dev.delayq.ClaimOptions.of(1, Duration.ofMinutes(1)))
                .jobs().get(0);
        orders.leases().progressAsync(running.lease(), "40").join();
        JsonNode j = s.http.get("/api/queues/orders/jobs/r1").json();
        assertThat(j.get("priority").asInt()).isEqualTo(4);
        assertThat(j.get("progress").asText()).isEqualTo("40");
        orders.leases().complete(running.lease());
        assertThat(s.http.get("/api/queues/orders/jobs/r1").json().get("progress").isNull()).isTrue();
    }

    @Test
    void aJobShowsItsNameAndDedupeKey() {
        orders.enqueue(Job.builder().id("n1").name("payment-timeout").dedupe("order-731", Duration.ofHours(2))
                .delay(Duration.ofHours(1)).build());
        JsonNode j = s.http.get("/api/queues/orders/jobs/n1").json();
        assertThat(j.get("name").asText()).isEqualTo("payment-timeout");
        assertThat(j.get("dedupeKey").asText()).isEqualTo("order-731");
        assertThat(j.get("dedupeHeldUntil").isNull()).as("held while the job is active").isTrue();
    }

    @Test
    void aMissingJobIs404AndAnInvalidIdIs400() {
        Seed.scheduled(orders, "s1");
        Http.Response missing = s.http.get("/api/queues/orders/jobs/nope");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.error()).isEqualTo("no job 'nope' in queue 'orders'");
        Http.Response tooLong = s.http.get("/api/queues/orders/jobs/" + "x".repeat(600));
        assertThat(tooLong.status()).isEqualTo(400);
        assertThat(tooLong.error()).contains("id");
    }

    @Test
    void idsWithSlashesSpacesPlusAndNonAsciiCharactersRoundTrip() {
        List<String> ids = List.of("user/42:reminder", "a b+c", "100%", "caf\u00e9 \u2603", "q?x=1&y#z", "..", ".", "a;b");
        for (String id : ids) {
            orders.enqueue(Job.builder().id(id).payload(id).delay(Duration.ofHours(1)).build());
        }
        for (String id : ids) {
            String path = "/api/queues/orders/jobs/" + encode(id);
            Http.Response r = s.http.get(path);
            assertThat(r.status()).as(id + " " + r).isEqualTo(200);
            assertThat(r.json().get("id").asText()).isEqualTo(id);
            assertThat(s.http.post(path + "/run-now").status()).as("run-now " + id).isEqualTo(200);
        }
    }

    /** A path segment as the pages write it: encodeURIComponent, and dots encoded too. */
    static String encode(String id) {
        return URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20").replace(".", "%2E");
    }

    @Test
    void aLargePayloadIsPreviewedNotSentWhole() {
        byte[] big = "0123456789abcdef".repeat(5 * 1024 * 1024 / 16).getBytes(StandardCharsets.US_ASCII);
        orders.enqueue(Job.builder().id("big").payload(big).delay(Duration.ofHours(1)).build());
        Http.Response r = s.http.get("/api/queues/orders/jobs/big");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.bytes()).as("the whole answer").isLessThan(16 * 1024);
        JsonNode j = r.json();
        assertThat(j.get("payloadBytes").asLong()).isEqualTo(5 * 1024 * 1024);
        assertThat(j.get("payload").asText()).hasSize(Dashboard.PAYLOAD_PREVIEW_BYTES)
                .isEqualTo(new String(big, 0, Dashboard.PAYLOAD_PREVIEW_BYTES, StandardCharsets.US_ASCII));
        assertThat(Base64.getDecoder().decode(j.get("payloadBase64").asText())).hasSize(Dashboard.PAYLOAD_PREVIEW_BYTES);
        assertThat(j.get("payloadPreviewBytes").asInt()).isEqualTo(Dashboard.PAYLOAD_PREVIEW_BYTES);
        assertThat(j.get("payloadTruncated").asBoolean()).isTrue();

        Http.Response list = s.http.get("/api/queues/orders/jobs?state=scheduled");
        assertThat(list.bytes()).isLessThan(16 * 1024);
        assertThat(list.json().get("jobs").get(0).get("payloadBytes").asLong()).isEqualTo(5 * 1024 * 1024);
    }

    @Test
    void aPreviewNeverSplitsACharacterAndBinaryIsBase64Only() {
        String euros = "\u20ac".repeat(3000); // 3 bytes each: 4096 is not a multiple of 3
        orders.enqueue(Job.builder().id("text").payload(euros).delay(Duration.ofHours(1)).build());
        JsonNode text = s.http.get("/api/queues/orders/jobs/text").json();
        assertThat(text.get("payload").asText()).isEqualTo("\u20ac".repeat(4096 / 3));
        assertThat(text.get("payloadPreviewBytes").asInt()).isEqualTo(4096 / 3 * 3);
        assertThat(text.get("payloadBytes").asInt()).isEqualTo(9000);

        byte[] binary = new byte[10_000];
        for (int i = 0; i < binary.length; i++) {
            binary[i] = (byte) (i * 7 + 0x80);
        }
        orders.enqueue(Job.builder().id("bin").payload(binary).delay(Duration.ofHours(1)).build());
        JsonNode bin = s.http.get("/api/queues/orders/jobs/bin").json();
        assertThat(bin.get("payload").isNull()).isTrue();
        byte[] preview = Base64.getDecoder().decode(bin.get("payloadBase64").asText());
        assertThat(preview).hasSize(Dashboard.PAYLOAD_PREVIEW_BYTES);
        assertThat(preview).isEqualTo(java.util.Arrays.copyOf(binary, Dashboard.PAYLOAD_PREVIEW_BYTES));
    }

    @Test
    void serverShowsRedisFacts() {
        Http.Response r = s.http.get("/api/server");
        assertThat(r.status()).isEqualTo(200);
        JsonNode j = r.json();
        ServerInfo info = s.dq.serverInfo();
        assertThat(j.get("version").asText()).isEqualTo(info.version());
        assertThat(j.get("mode").asText()).isEqualTo("single");
        assertThat(j.get("server").asText()).isEqualTo(info.server());
        assertThat(j.get("usedMemoryBytes").asLong()).isPositive();
        assertThat(j.get("connectedClients").asLong()).isPositive();
        assertThat(j.has("maxMemoryBytes")).isTrue();
        assertThat(j.get("uptimeSeconds").asLong()).isNotNegative();
        assertThat(Duration.between(Instant.parse(j.get("serverTime").asText()), s.dq.serverTime()).abs())
                .isLessThan(Duration.ofMinutes(1));
        assertThat(j.get("readOnly").asBoolean()).isFalse();
        assertThat(j.get("tokenRequired").asBoolean()).isTrue();
        assertThat(j.get("prefix").asText()).isEqualTo(REDIS.prefix());
    }

    @Test
    void unknownRoutesAre404AsJson() {
        Http.Response r = s.http.get("/api/nothing");
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.error()).isEqualTo("no such page: GET /api/nothing");
        assertThat(s.http.get("/assets/nothing.js").status()).isEqualTo(404);
    }
}
