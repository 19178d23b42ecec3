package dev.delayq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.QueueStats;
import dev.delayq.Worker;
import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code /history?window=1h|24h|7d} (issue 43): the charts' windows, their points and their parameter. */
class HistoryWindowTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    /** Every point of a window: its start on the point's boundary, each one point after the last; the sums. */
    /** {@code before} and {@code after}: Redis's time before and after the request (the last point may begin between them). */
    private static long[] walk(JsonNode h, String window, int pointSeconds, int minPoints, int maxPoints, Instant before,
            Instant after) {
        assertThat(h.get("queue").asText()).isEqualTo("orders");
        assertThat(h.get("window").asText()).isEqualTo(window);
        assertThat(h.get("pointSeconds").asInt()).isEqualTo(pointSeconds);
        JsonNode points = h.get("points");
        assertThat(points.size()).as(window + " points").isBetween(minPoints, maxPoints);
        long[] sums = new long[4];
        boolean lag = false;
        Instant previous = null;
        for (JsonNode p : points) {
            Instant start = Instant.parse(p.get("start").asText());
            if (previous != null) {
                assertThat(start.getEpochSecond() % pointSeconds).as("on the point's boundary").isZero();
                assertThat(Duration.between(previous, start)).isEqualTo(Duration.ofSeconds(pointSeconds));
            }
            previous = start;
            sums[0] += p.get("enqueued").asLong();
            sums[1] += p.get("completed").asLong();
            sums[2] += p.get("retried").asLong();
            sums[3] += p.get("dead").asLong();
            if (!p.get("lagP99Millis").isNull()) {
                lag = true;
                assertThat(p.get("lagP99Millis").asDouble()).isGreaterThanOrEqualTo(p.get("lagP50Millis").asDouble());
            }
        }
        assertThat(previous).isBeforeOrEqualTo(after).isAfter(before.minusSeconds(pointSeconds + 1));
        assertThat(lag).as(window + ": a point with dispatch lag").isTrue();
        return sums;
    }

    @Test
    void eachWindowCountsWhatAWorkerDidInItsPoints() {
        try (Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            JobQueue orders = s.dq.queue("orders");
            List<Job> jobs = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                jobs.add(Job.builder().id("w" + i).payload(i == 0 ? "fail" : "ok").build());
            }
            orders.enqueueAll(jobs);
            Worker worker = Worker.builder(orders, ctx -> {
                if (ctx.payloadUtf8().equals("fail")) {
                    throw new dev.delayq.NonRetryableException("refused");
                }
            }).concurrency(2).build().start();
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> {
                    QueueStats st = orders.inspector().stats();
                    return st.done() == 11 && st.dead() == 1;
                });
            } finally {
                worker.close();
            }
            Instant now = s.dq.serverTime();
            long[] hour = walk(s.http.get("/api/queues/orders/history?window=1h").json(), "1h", 60, 60, 60, now, s.dq.serverTime());
            // A day of minutes, ten to a point on the clock's boundaries: 144, or 145 with a partial first one.
            long[] day = walk(s.http.get("/api/queues/orders/history?window=24h").json(), "24h", 600, 144, 145, now, s.dq.serverTime());
            // Seven days of the hours the scripts keep beside the minutes (168 slots).
            long[] week = walk(s.http.get("/api/queues/orders/history?window=7d").json(), "7d", 3600, 168, 168, now, s.dq.serverTime());
            assertThat(hour).containsExactly(12, 11, 0, 1);
            assertThat(day).containsExactly(12, 11, 0, 1);
            assertThat(week).as("the hourly series sums the same jobs").containsExactly(12, 11, 0, 1);
        }
    }

    @Test
    void aBadWindowIs400SayingWhichAreAllowed() {
        try (Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            Seed.scheduled(s.dq.queue("orders"), "s1");
            Http.Response bad = s.http.get("/api/queues/orders/history?window=2h");
            assertThat(bad.status()).isEqualTo(400);
            assertThat(bad.error()).isEqualTo("window is '2h': use 1h, 24h or 7d");
            assertThat(s.http.get("/api/queues/orders/history?window=week").error()).isEqualTo("window is 'week': use 1h, 24h or 7d");
            assertThat(s.http.get("/api/queues/orders/history?window=7d&minutes=5").error())
                    .isEqualTo("give either window (1h, 24h or 7d) or minutes (1 to 1440), not both");
            assertThat(s.http.get("/api/queues/nope/history?window=7d").status()).isEqualTo(404);
            JsonNode quiet = s.http.get("/api/queues/orders/history?window=7d").json().get("points");
            assertThat(quiet).hasSize(168);
            assertThat(quiet.get(167).get("enqueued").asLong()).as("the seeded job, this hour").isLessThanOrEqualTo(1);
            assertThat(quiet.get(167).get("lagP50Millis").isNull()).as("no job started: no lag").isTrue();
        }
    }
}
