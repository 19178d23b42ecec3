package dev.delayq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.JobInfo;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.QueueStats;
import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The change routes over real HTTP: each does what the queue operation does, and answers 200, 400, 404 or 409. */
class ApiChangeTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

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

    private JobInfo job(String id) {
        return orders.get(id).orElseThrow();
    }

    @Test
    void retryMovesADeadJobToScheduledDueNow() {
        Seed.dead(orders, "boom", "d1");
        Instant before = s.dq.serverTime();
        Http.Response r = s.http.post("/api/queues/orders/jobs/d1/retry");
        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        assertThat(r.json().get("changed").asBoolean()).isTrue();
        assertThat(r.json().get("id").asText()).isEqualTo("d1");
        JobInfo j = job("d1");
        assertThat(j.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(j.dueAt()).isBetween(before.minusSeconds(1), s.dq.serverTime());
        assertThat(orders.inspector().stats().dead()).isZero();
    }

    @Test
    void retryOfAJobThatIsNotDeadIs409AndOfNoJob404() {
        Seed.scheduled(orders, "s1");
        Http.Response wrong = s.http.post("/api/queues/orders/jobs/s1/retry");
        assertThat(wrong.status()).isEqualTo(409);
        assertThat(wrong.error()).isEqualTo("job 's1' is scheduled: only dead jobs can be retried");
        Http.Response missing = s.http.post("/api/queues/orders/jobs/nope/retry");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.error()).isEqualTo("no job 'nope' in queue 'orders'");
        assertThat(s.http.post("/api/queues/nope/jobs/s1/retry").status()).isEqualTo(404);
    }

    @Test
    void runNowMakesAScheduledJobDueNow() {
        Seed.scheduled(orders, "s1");
        Seed.dead(orders, "boom", "d1");
        assertThat(job("s1").dueAt()).isAfter(s.dq.serverTime().plusSeconds(3000));
        Http.Response r = s.http.post("/api/queues/orders/jobs/s1/run-now");
        assertThat(r.status()).isEqualTo(200);
        assertThat(job("s1").dueAt()).isBeforeOrEqualTo(s.dq.serverTime());
        assertThat(Instant.parse(r.json().get("dueAt").asText())).isEqualTo(job("s1").dueAt());

        Http.Response wrong = s.http.post("/api/queues/orders/jobs/d1/run-now");
        assertThat(wrong.status()).isEqualTo(409);
        assertThat(wrong.error()).isEqualTo("job 'd1' is dead: only scheduled jobs can be run now");
        assertThat(s.http.post("/api/queues/orders/jobs/nope/run-now").status()).isEqualTo(404);
    }

    @Test
    void cancelDeletesAScheduledJobOnly() {
        Seed.scheduled(orders, "s1");
        Seed.processing(orders, "p1");
        assertThat(s.http.post("/api/queues/orders/jobs/s1/cancel").status()).isEqualTo(200);
        assertThat(orders.get("s1")).isEmpty();
        assertThat(s.http.get("/api/queues/orders/jobs/s1").status()).isEqualTo(404);
        Http.Response running = s.http.post("/api/queues/orders/jobs/p1/cancel");
        assertThat(running.status()).isEqualTo(409);
        assertThat(running.error()).isEqualTo("job 'p1' is processing: only scheduled jobs can be cancelled");
        assertThat(job("p1").state()).isEqualTo(JobState.PROCESSING);
        assertThat(s.http.post("/api/queues/orders/jobs/s1/cancel").status()).isEqualTo(404);
    }

    @Test
    void rescheduleTakesADelayOrAnInstant() {
        Seed.scheduled(orders, "s1");
        Instant before = s.dq.serverTime();
        Http.Response r = s.http.post("/api/queues/orders/jobs/s1/reschedule?delay=1h30m");
        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        assertThat(job("s1").dueAt()).isBetween(before.plus(Duration.ofMinutes(90)),
                s.dq.serverTime().plus(Duration.ofMinutes(90)).plusMillis(1));

        Http.Response iso = s.http.post("/api/queues/orders/jobs/s1/reschedule?delay=PT2M");
        assertThat(iso.status()).isEqualTo(200);

        Instant at = Instant.parse("2031-05-06T07:08:09.123Z");
        assertThat(s.http.post("/api/queues/orders/jobs/s1/reschedule?at=2031-05-06T09:08:09.123%2B02:00").status())
                .isEqualTo(200);
        assertThat(job("s1").dueAt()).isEqualTo(at);
    }

    @Test
    void rescheduleWithBadParametersIs400() {
        Seed.scheduled(orders, "s1");
        assertThat(s.http.post("/api/queues/orders/jobs/s1/reschedule").error())
                .isEqualTo("give either delay (e.g. 30s, 5m, 1h30m) or at (e.g. 2030-01-01T09:00:00Z)");
        assertThat(s.http.post("/api/queues/orders/jobs/s1/reschedule?delay=5m&at=2030-01-01T00:00:00Z").status())
                .isEqualTo(400);
        Http.Response badDelay = s.http.post("/api/queues/orders/jobs/s1/reschedule?delay=soon");
        assertThat(badDelay.status()).isEqualTo(400);
        assertThat(badDelay.error()).isEqualTo("delay is 'soon': use a number with ms, s, m, h or d (250ms, 30s, 5m, "
                + "2h, 7d, 1h30m) or ISO-8601 (PT30S)");
        assertThat(s.http.post("/api/queues/orders/jobs/s1/reschedule?delay=-PT1S").error())
                .isEqualTo("delay is '-PT1S': it must not be negative");
        Http.Response badAt = s.http.post("/api/queues/orders/jobs/s1/reschedule?at=tomorrow");
        assertThat(badAt.status()).isEqualTo(400);
        assertThat(badAt.error()).startsWith("at is 'tomorrow'");
        assertThat(s.http.post("/api/queues/orders/jobs/s1/reschedule?at=12000-01-01T00:00:00Z").status())
                .as("beyond year 9999").isEqualTo(400);
    }

    @Test
    void retryAllMovesEveryDeadJob() {
        Seed.dead(orders, "boom", "d1", "d2", "d3");
        Seed.scheduled(orders, "s1");
        Http.Response r = s.http.post("/api/queues/orders/dead/retry-all");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().get("retried").asLong()).isEqualTo(3);
        assertThat(orders.inspector().stats().dead()).isZero();
        assertThat(orders.inspector().stats().scheduled()).isEqualTo(4);
        JsonNode again = s.http.post("/api/queues/orders/dead/retry-all").json();
        assertThat(again.get("retried").asLong()).isZero();
        assertThat(s.http.post("/api/queues/nope/dead/retry-all").status()).isEqualTo(404);
    }

    @Test
    void deleteRemovesAJobInAnyStateButProcessing() {
        Seed.dead(orders, "boom", "d1");
        Seed.done(orders, "c1");
        Seed.scheduled(orders, "s1");
        Seed.processing(orders, "p1");
        for (String id : List.of("d1", "c1", "s1")) {
            Http.Response r = s.http.delete("/api/queues/orders/jobs/" + id);
            assertThat(r.status()).as(id + " " + r).isEqualTo(200);
            assertThat(orders.get(id)).as(id).isEmpty();
        }
        Http.Response running = s.http.delete("/api/queues/orders/jobs/p1");
        assertThat(running.status()).isEqualTo(409);
        assertThat(running.error()).isEqualTo("job 'p1' is processing: a worker is running it, and only scheduled, done or "
                + "dead jobs can be deleted");
        assertThat(s.http.delete("/api/queues/orders/jobs/d1").status()).isEqualTo(404);
        assertThat(s.http.delete("/api/queues/nope/jobs/p1").status()).isEqualTo(404);
        QueueStats stats = orders.inspector().stats();
        assertThat(List.of(stats.scheduled(), stats.processing(), stats.done(), stats.dead())).containsExactly(0L, 1L, 0L, 0L);
        assertThat(orders.inspector().check().clean()).isTrue();
    }

    @Test
    void pauseAndResumeAreShownInTheQueue() {
        Seed.scheduled(orders, "s1");
        assertThat(s.http.get("/api/queues/orders").json().get("paused").asBoolean()).isFalse();
        Http.Response paused = s.http.post("/api/queues/orders/pause");
        assertThat(paused.status()).isEqualTo(200);
        assertThat(paused.json().get("paused").asBoolean()).isTrue();
        assertThat(orders.inspector().stats().paused()).isTrue();
        assertThat(s.http.get("/api/queues").json().get(0).get("paused").asBoolean()).isTrue();
        Http.Response resumed = s.http.post("/api/queues/orders/resume");
        assertThat(resumed.status()).isEqualTo(200);
        assertThat(resumed.json().get("paused").asBoolean()).isFalse();
        assertThat(orders.inspector().stats().paused()).isFalse();
        assertThat(s.http.post("/api/queues/nope/pause").status()).isEqualTo(404);
        assertThat(s.http.post("/api/queues/nope/resume").status()).isEqualTo(404);
    }

    @Test
    void changesAreNotAllowedWithGet() {
        Seed.dead(orders, "boom", "d1");
        Http.Response r = s.http.get("/api/queues/orders/jobs/d1/retry");
        assertThat(r.status()).isEqualTo(405);
        assertThat(r.error()).isEqualTo("GET is not allowed here: changes are POST or DELETE, reads are GET");
        assertThat(s.http.get("/api/queues/orders/dead/retry-all").status()).isEqualTo(405);
        assertThat(job("d1").state()).isEqualTo(JobState.DEAD);
    }
}
