package dev.delayq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.ClaimOptions;
import dev.delayq.ClaimedJob;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code GET /api/queues/{queue}/search}: id prefix, name and error text, a bounded scan that says where to go on. */
class SearchTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private static List<String> ids(JsonNode answer) {
        List<String> out = new ArrayList<>();
        answer.get("jobs").forEach(j -> out.add(j.get("id").asText()));
        return out;
    }

    @Test
    void findsByIdPrefixNameAndErrorText() {
        try (Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            JobQueue q = s.dq.queue("orders");
            Seed.dead(q, "Card declined by bank", "pay-10", "pay-11");
            Seed.dead(q, "connect timeout", "mail-1");
            q.enqueue(Job.builder().id("x1").name("nightly-report").payload("p").build());
            List<ClaimedJob> c = q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1))).jobs();
            q.leases().fail(c.get(0).lease(), "disk full", false, Duration.ZERO);

            assertThat(ids(s.http.get("/api/queues/orders/search?state=dead&q=pay-1").json())).containsExactly("pay-10", "pay-11");
            assertThat(ids(s.http.get("/api/queues/orders/search?state=dead&q=TIMEOUT").json())).containsExactly("mail-1");
            assertThat(ids(s.http.get("/api/queues/orders/search?state=dead&q=report").json())).containsExactly("x1");
            JsonNode none = s.http.get("/api/queues/orders/search?state=dead&q=nothing-like-it").json();
            assertThat(none.get("jobs")).isEmpty();
            assertThat(none.get("scanned").asLong()).isEqualTo(4);
            assertThat(none.get("next").isNull()).isTrue();
            assertThat(none.get("scanLimit").asInt()).isEqualTo(Search.SCAN_LIMIT);
            assertThat(ids(s.http.get("/api/queues/orders/search?state=scheduled&q=pay").json())).isEmpty();

            Http.Response blank = s.http.get("/api/queues/orders/search?state=dead&q=%20");
            assertThat(blank.status()).isEqualTo(400);
            assertThat(blank.error()).startsWith("q is blank: give the start of an id");
            assertThat(s.http.get("/api/queues/orders/search?state=dead").error()).startsWith("q is missing");
        }
    }

    /** More matches than one answer holds: the answer says where to go on, and going on finds the rest. */
    @Test
    void aSearchStopsAtItsMatchLimitAndGoesOn() {
        try (Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            JobQueue q = s.dq.queue("many");
            for (int i = 0; i < 60; i++) {
                q.enqueue(Job.builder().id(String.format("m%02d", i)).payload("p").delay(Duration.ofMinutes(10 + i)).build());
            }
            JsonNode first = s.http.get("/api/queues/many/search?state=scheduled&q=m").json();
            assertThat(first.get("jobs")).hasSize(Search.MATCH_LIMIT);
            assertThat(first.get("next").asLong()).isEqualTo(50);
            JsonNode rest = s.http.get("/api/queues/many/search?state=scheduled&q=m&from=" + first.get("next").asLong()).json();
            assertThat(ids(rest)).hasSize(10).startsWith("m50").endsWith("m59");
            assertThat(rest.get("next").isNull()).isTrue();
        }
    }
}
