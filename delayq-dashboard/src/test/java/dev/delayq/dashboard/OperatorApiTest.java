package dev.delayq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.ClaimOptions;
import dev.delayq.ClaimedJob;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.Limits;
import dev.delayq.Schedule;
import dev.delayq.ScheduleInfo;
import dev.delayq.Worker;
import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The API of issue 43 against a real dashboard and Redis: {@code /api/workers} lists a running worker with the job it
 * runs, queue counts carry ready/delayed/retrying and the live workers (flagging a queue with due jobs and none),
 * processing rows name their worker, done and dead pages sort newest first, {@code /metrics} has the new gauges, and a
 * queue's schedules (run now, remove), limits and event stream work through the API.
 */
class OperatorApiTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private Served s;

    @BeforeEach
    void start() {
        s = Served.withToken(REDIS.uri(), REDIS.prefix());
    }

    @AfterEach
    void stop() {
        s.close();
    }

    @Test
    void aRunningWorkerIsListedWithItsJobAndProcessingRowsNameIt() throws Exception {
        JobQueue q = s.dq.queue("busy");
        CountDownLatch release = new CountDownLatch(1);
        Worker w = Worker.builder(q, ctx -> release.await()).name("api-worker").concurrency(2)
                .heartbeatInterval(Duration.ofMillis(200)).build().start();
        try {
            q.enqueue(Job.builder().id("long-one").build());
            await().atMost(Duration.ofSeconds(30)).until(() -> s.http.get("/api/workers").json().get("workers")
                    .findValues("running").stream().anyMatch(r -> r.size() == 1));
            JsonNode worker = s.http.get("/api/workers").json().get("workers").get(0);
            assertThat(worker.get("name").asText()).isEqualTo("api-worker");
            assertThat(worker.get("queues").get(0).asText()).isEqualTo("busy");
            assertThat(worker.get("concurrency").asInt()).isEqualTo(2);
            assertThat(worker.get("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
            assertThat(worker.get("running").get(0).get("id").asText()).isEqualTo("long-one");
            assertThat(Instant.parse(worker.get("running").get(0).get("startedAt").asText())).isBefore(Instant.now().plusSeconds(5));
            for (String key : List.of("host", "startedAt", "lastBeat", "version")) {
                assertThat(worker.get(key).isNull()).as(key).isFalse();
            }

            JsonNode page = s.http.get("/api/queues/busy/jobs?state=processing").json();
            assertThat(page.get("jobs").get(0).get("worker").asText()).isEqualTo("api-worker");
            assertThat(page.get("jobs").get(0).get("runningSince").asText()).isNotEmpty();
            JsonNode busy = s.http.get("/api/queues/busy").json();
            assertThat(busy.get("workers").asInt()).isEqualTo(1);
            assertThat(busy.get("unattended").asBoolean()).isFalse();
            assertThat(s.http.get("/metrics").body()).contains("delayq_workers{queue=\"busy\"} 1.0");
        } finally {
            release.countDown();
            w.close();
        }
        assertThat(s.http.get("/api/workers").json().get("workers")).isEmpty();
    }

    @Test
    void queueCountsSplitScheduledIntoReadyDelayedAndRetryingAndFlagAQueueWithoutWorkers() {
        JobQueue q = s.dq.queue("orders");
        q.enqueue(Job.builder().id("flaky").build());
        ClaimedJob c = q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1))).jobs().get(0);
        q.leases().fail(c.lease(), "timeout", true, Duration.ofHours(1));
        q.enqueue(Job.builder().id("now").build());
        Seed.scheduled(q, "later1", "later2");

        JsonNode o = s.http.get("/api/queues").json().get(0);
        assertThat(o.get("scheduled").asLong()).isEqualTo(4);
        assertThat(o.get("ready").asLong()).isEqualTo(1);
        assertThat(o.get("delayed").asLong()).isEqualTo(2);
        assertThat(o.get("retrying").asLong()).isEqualTo(1);
        assertThat(o.get("workers").asInt()).isZero();
        assertThat(o.get("unattended").asBoolean()).isTrue();
        assertThat(s.http.get("/api/queues/orders").json().get("retrying").asLong()).isEqualTo(1);

        String metrics = s.http.get("/metrics").body();
        assertThat(metrics).contains("delayq_scheduled_jobs{queue=\"orders\",state=\"ready\"} 1.0",
                "delayq_scheduled_jobs{queue=\"orders\",state=\"delayed\"} 2.0",
                "delayq_scheduled_jobs{queue=\"orders\",state=\"retrying\"} 1.0", "delayq_workers{queue=\"orders\"} 0.0",
                "delayq_jobs{queue=\"orders\",state=\"scheduled\"} 4.0");
    }

    @Test
    void doneAndDeadPagesSortNewestFirstOnRequest() {
        JobQueue q = s.dq.queue("orders");
        for (String id : List.of("d1", "d2", "d3")) {
            Seed.dead(q, "boom " + id, id); // one at a time: each dies after the one before
        }
        assertThat(ids(s.http.get("/api/queues/orders/jobs?state=dead").json())).containsExactly("d1", "d2", "d3");
        JsonNode newest = s.http.get("/api/queues/orders/jobs?state=dead&order=newest&limit=2").json();
        assertThat(ids(newest)).containsExactly("d3", "d2");
        assertThat(newest.get("order").asText()).isEqualTo("newest");
        assertThat(ids(s.http.get("/api/queues/orders/jobs?state=dead&order=newest&offset=2&limit=2").json()))
                .containsExactly("d1");
        Http.Response bad = s.http.get("/api/queues/orders/jobs?state=dead&order=sideways");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.error()).isEqualTo("order is 'sideways': use oldest or newest");
    }

    private static List<String> ids(JsonNode page) {
        return page.get("jobs").findValuesAsText("id");
    }

    @Test
    void schedulesAreListedRunNowAndRemoved() {
        JobQueue q = s.dq.queue("reports");
        q.schedules().upsert(Schedule.cron("nightly", "0 3 * * *", ZoneId.of("Europe/Paris")).payload("go"));
        JsonNode list = s.http.get("/api/queues/reports/schedules").json().get("schedules");
        assertThat(list).hasSize(1);
        JsonNode n = list.get(0);
        assertThat(n.get("name").asText()).isEqualTo("nightly");
        assertThat(n.get("zone").asText()).isEqualTo("Europe/Paris");
        assertThat(n.get("missed").asText()).isEqualTo("skip");
        Instant next = Instant.parse(n.get("nextTick").asText());
        assertThat(n.get("nextTickLocal").asText()).isEqualTo(next.atZone(ZoneId.of("Europe/Paris")).toOffsetDateTime().toString())
                .contains("T03:00");
        String pending = n.get("pendingJob").asText();
        assertThat(pending).isEqualTo("nightly@" + next.toEpochMilli());

        Http.Response run = s.http.post("/api/queues/reports/schedules/nightly/run-now");
        assertThat(run.status()).isEqualTo(200);
        assertThat(run.json().get("id").asText()).isEqualTo(pending);
        assertThat(q.inspector().stats().ready()).isEqualTo(1);

        assertThat(s.http.post("/api/queues/reports/schedules/nope/run-now").status()).isEqualTo(404);
        assertThat(s.http.delete("/api/queues/reports/schedules/nightly").status()).isEqualTo(200);
        assertThat(q.schedules().list()).isEmpty();
        assertThat(s.http.delete("/api/queues/reports/schedules/nightly").status()).isEqualTo(404);
        assertThat(s.http.get("/api/queues/unknown/schedules").status()).isEqualTo(404);
    }

    @Test
    void schedulesArePausedAndResumed() {
        JobQueue q = s.dq.queue("pausing");
        q.schedules().upsert(Schedule.every("hourly", Duration.ofHours(1)));
        String pending = q.schedules().get("hourly").map(i -> ScheduleInfo.tickId("hourly", i.nextTick())).orElseThrow();
        Http.Response pause = s.http.post("/api/queues/pausing/schedules/hourly/pause");
        assertThat(pause.status()).as(pause.toString()).isEqualTo(200);
        assertThat(pause.json().get("paused").asBoolean()).isTrue();
        assertThat(pause.json().get("changed").asBoolean()).isTrue();
        assertThat(pause.json().get("nextTick").isNull()).isTrue();
        assertThat(q.schedules().get("hourly").orElseThrow().paused()).isTrue();
        assertThat(q.get(pending)).as("the pending tick cancelled").isEmpty();
        JsonNode listed = s.http.get("/api/queues/pausing/schedules").json().get("schedules").get(0);
        assertThat(listed.get("paused").asBoolean()).isTrue();
        assertThat(listed.get("pendingJob").isNull()).isTrue();
        assertThat(s.http.post("/api/queues/pausing/schedules/hourly/pause").json().get("changed").asBoolean()).isFalse();
        Http.Response run = s.http.post("/api/queues/pausing/schedules/hourly/run-now");
        assertThat(run.status()).isEqualTo(409);
        assertThat(run.error()).contains("it is paused: resume it first");

        Http.Response resume = s.http.post("/api/queues/pausing/schedules/hourly/resume");
        assertThat(resume.status()).isEqualTo(200);
        assertThat(resume.json().get("paused").asBoolean()).isFalse();
        assertThat(resume.json().get("changed").asBoolean()).isTrue();
        assertThat(q.get(resume.json().get("pendingJob").asText())).as("a new tick enqueued").isPresent();
        assertThat(s.http.post("/api/queues/pausing/schedules/nope/pause").status()).isEqualTo(404);
        assertThat(s.http.post("/api/queues/pausing/schedules/nope/resume").status()).isEqualTo(404);
    }

    @Test
    void aJobCarriesItsErrorHistory() {
        JobQueue q = s.dq.queue("flaky");
        q.enqueue(Job.builder().id("f").maxAttempts(5).build());
        for (int i = 1; i <= 2; i++) {
            q.reschedule("f", Duration.ZERO);
            ClaimedJob j = q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1))).jobs().get(0);
            q.leases().fail(j.lease(), "boom " + i, true, Duration.ofHours(1));
        }
        JsonNode errors = s.http.get("/api/queues/flaky/jobs/f").json().get("errors");
        assertThat(errors.findValuesAsText("error")).containsExactly("boom 2", "boom 1");
        assertThat(errors.findValuesAsText("attempt")).containsExactly("2", "1");
        q.enqueue(Job.builder().id("fine").delay(Duration.ofHours(1)).build());
        assertThat(s.http.get("/api/queues/flaky/jobs/fine").json().get("errors")).isEmpty();
    }

    @Test
    void limitsAreSetAndTakeEffectInClaims() {
        JobQueue q = s.dq.queue("mail");
        Seed.scheduled(q, "m0");
        Http.Response set = s.http.post("/api/queues/mail/limits?rate=50/1s&concurrency=1");
        assertThat(set.status()).isEqualTo(200);
        assertThat(set.json().get("rate").asText()).isEqualTo("50/1s");
        assertThat(q.inspector().limits().concurrency()).isEqualTo(1);
        q.enqueue(Job.builder().id("a").build());
        q.enqueue(Job.builder().id("b").build());
        assertThat(q.leases().claim(ClaimOptions.of(2, Duration.ofMinutes(1))).jobs()).hasSize(1);

        assertThat(s.http.post("/api/queues/mail/limits?concurrency=none").status()).isEqualTo(200);
        assertThat(q.inspector().limits()).isEqualTo(Limits.rate(50, Duration.ofSeconds(1)));
        Http.Response bad = s.http.post("/api/queues/mail/limits?concurrency=many");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.error()).contains("concurrency is 'many'");
        assertThat(s.http.post("/api/queues/mail/limits?rate=fast").status()).isEqualTo(400);
        assertThat(s.http.post("/api/queues/mail/limits").status()).isEqualTo(400);
        assertThat(q.inspector().limits()).isEqualTo(Limits.rate(50, Duration.ofSeconds(1)));
    }

    /** The new changes follow the rules of the others: read-only refuses them, a cross-site request is refused. */
    @Test
    void scheduleAndLimitChangesAreRefusedReadOnlyAndCrossSite() {
        JobQueue q = s.dq.queue("guarded");
        q.schedules().upsert(Schedule.every("tick", Duration.ofHours(1)));
        for (Http.Response r : List.of(s.http.with("Sec-Fetch-Site", "cross-site").post("/api/queues/guarded/limits?concurrency=1"),
                s.http.with("Origin", "http://evil.example").post("/api/queues/guarded/schedules/tick/run-now"),
                s.http.with("Origin", "http://evil.example").post("/api/queues/guarded/schedules/tick/pause"),
                s.http.with("Origin", "http://evil.example").post("/api/queues/guarded/schedules/tick/resume"),
                s.http.with("Origin", "http://evil.example").delete("/api/queues/guarded/schedules/tick"))) {
            assertThat(r.status()).as(r.toString()).isEqualTo(403);
        }
        try (Served ro = Served.start(REDIS.uri(), REDIS.prefix(), b -> b.token(Served.TOKEN).readOnly(true), Served.TOKEN)) {
            for (Http.Response r : List.of(ro.http.post("/api/queues/guarded/limits?concurrency=1"),
                    ro.http.post("/api/queues/guarded/schedules/tick/run-now"), ro.http.delete("/api/queues/guarded/schedules/tick"),
                    ro.http.post("/api/queues/guarded/schedules/tick/pause"), ro.http.post("/api/queues/guarded/schedules/tick/resume"))) {
                assertThat(r.status()).as(r.toString()).isEqualTo(403);
            }
            assertThat(ro.http.get("/api/queues/guarded/schedules").status()).isEqualTo(200);
            assertThat(ro.http.get("/api/workers").status()).isEqualTo(200);
        }
        assertThat(q.inspector().limits()).isEqualTo(Limits.none());
        assertThat(q.schedules().get("tick")).isPresent();
        assertThat(q.schedules().get("tick").orElseThrow().paused()).isFalse();
        assertThat(q.inspector().stats().ready()).isZero();
    }

    @Test
    void theEventStreamIsReadInBoundedSteps() {
        JobQueue q = s.dq.queue("ev");
        Seed.scheduled(q, "x0");
        JsonNode off = s.http.get("/api/queues/ev/events").json();
        assertThat(off.get("enabled").asBoolean()).isFalse();
        q.inspector().events(true);
        Seed.scheduled(q, "x1", "x2", "x3");
        JsonNode first = s.http.get("/api/queues/ev/events?max=2").json();
        assertThat(first.get("enabled").asBoolean()).isTrue();
        assertThat(first.get("events")).hasSize(2);
        assertThat(first.get("events").get(0).get("type").asText()).isEqualTo("enqueued");
        assertThat(first.get("events").get(0).get("jobId").asText()).isEqualTo("x1");
        String after = first.get("events").get(1).get("eventId").asText();
        JsonNode rest = s.http.get("/api/queues/ev/events?after=" + after).json();
        assertThat(rest.get("events").findValuesAsText("jobId")).containsExactly("x3");
        assertThat(s.http.get("/api/queues/ev/events?max=0").status()).isEqualTo(400);
        assertThat(s.http.get("/api/queues/ev/events?after=zzz").status()).isEqualTo(400);
    }
}
