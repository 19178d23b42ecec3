package dev.delayq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.NonRetryableException;
import dev.delayq.QueueStats;
import dev.delayq.Worker;
import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code /history}: what a real worker did, per minute, as Redis recorded it; and its parameters. */
class HistoryTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    @Test
    void historyCountsWhatHappenedPerMinuteWithTheDispatchLag() {
        try (Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            JobQueue orders = s.dq.queue("orders");
            List<Job> jobs = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                jobs.add(Job.builder().id("h" + i).payload(i == 0 ? "fail" : "ok").build());
            }
            orders.enqueueAll(jobs);
            Worker worker = Worker.builder(orders, ctx -> {
                if (ctx.payloadUtf8().equals("fail")) {
                    throw new NonRetryableException("refused");
                }
            }).concurrency(4).build().start();
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> {
                    QueueStats st = orders.inspector().stats();
                    return st.done() == 19 && st.dead() == 1;
                });
            } finally {
                worker.close();
            }

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                JsonNode h = s.http.get("/api/queues/orders/history?minutes=5").json();
                assertThat(h.get("queue").asText()).isEqualTo("orders");
                JsonNode minutes = h.get("minutes");
                assertThat(minutes).hasSize(5);
                long enqueued = 0;
                long completed = 0;
                long retried = 0;
                long dead = 0;
                boolean lag = false;
                Instant previous = null;
                for (JsonNode m : minutes) {
                    Instant minute = Instant.parse(m.get("minute").asText());
                    assertThat(minute.getEpochSecond() % 60).isZero();
                    if (previous != null) {
                        assertThat(Duration.between(previous, minute)).isEqualTo(Duration.ofMinutes(1));
                    }
                    previous = minute;
                    enqueued += m.get("enqueued").asLong();
                    completed += m.get("completed").asLong();
                    retried += m.get("retried").asLong();
                    dead += m.get("dead").asLong();
                    if (!m.get("lagP99Millis").isNull()) {
                        lag = true;
                        assertThat(m.get("lagP99Millis").asDouble()).isGreaterThanOrEqualTo(m.get("lagP50Millis").asDouble())
                                .isNotNegative();
                    }
                }
                assertThat(previous).isBeforeOrEqualTo(s.dq.serverTime());
                assertThat(List.of(enqueued, completed, retried, dead)).containsExactly(20L, 19L, 0L, 1L);
                assertThat(lag).as("a minute with dispatch lag").isTrue();
            });
            assertThat(s.http.get("/api/queues/orders/history").json().get("minutes")).as("60 by default").hasSize(60);
        }
    }

    @Test
    void badMinutesAre400AndAnUnknownQueue404() {
        try (Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            Seed.scheduled(s.dq.queue("orders"), "s1");
            assertThat(s.http.get("/api/queues/orders/history?minutes=0").error())
                    .isEqualTo("minutes is '0': it must be a whole number from 1 to 1440");
            assertThat(s.http.get("/api/queues/orders/history?minutes=1441").status()).isEqualTo(400);
            assertThat(s.http.get("/api/queues/orders/history?minutes=an-hour").status()).isEqualTo(400);
            assertThat(s.http.get("/api/queues/nope/history").status()).isEqualTo(404);
            JsonNode quiet = s.http.get("/api/queues/orders/history?minutes=3").json().get("minutes");
            assertThat(quiet).hasSize(3);
            assertThat(quiet.get(2).get("lagP50Millis").isNull()).as("no job started: no lag").isTrue();
        }
    }
}
