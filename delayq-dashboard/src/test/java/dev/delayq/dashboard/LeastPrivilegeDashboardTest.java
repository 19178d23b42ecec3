package dev.delayq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQ;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.LeastPrivilege;
import dev.delayq.testkit.RedisServer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The dashboard, its API and {@code /metrics} work for a Redis user with only {@link LeastPrivilege}'s rules: every
 * route answers as for a full user, and Redis's ACL log stays empty but for the optional {@code CONFIG GET} check.
 */
class LeastPrivilegeDashboardTest {
    private static final String PASSWORD = "dashboard-secret-1";

    @Test
    void everyRouteWorksForARestrictedUser() {
        try (RedisServer server = RedisServer.start()) {
            String version = server.info("server").get("redis_version");
            List<String> cmd = new ArrayList<>(List.of("ACL", "SETUSER", "ops", "on", ">" + PASSWORD));
            cmd.addAll(LeastPrivilege.rules("lpd", version));
            assertThat(server.call(cmd.toArray(String[]::new))).isEqualTo("OK");
            server.call("ACL", "LOG", "RESET");

            try (Served s = Served.start("redis://ops:" + PASSWORD + "@127.0.0.1:" + server.port(), "lpd", b -> { }, null)) {
                JobQueue orders = s.dq.queue("orders");
                Seed.scheduled(orders, "s1", "s2", "s3");
                Seed.dead(orders, "boom", "d1", "d2");
                Seed.processing(orders, "p1");
                Seed.done(orders, "c1");

                assertThat(s.http.get("/api/server").status()).isEqualTo(200);
                assertThat(s.http.get("/api/queues").json().get(0).get("scheduled").asLong()).isEqualTo(3);
                assertThat(s.http.get("/api/queues/orders").status()).isEqualTo(200);
                for (String state : List.of("scheduled", "processing", "done", "dead")) {
                    assertThat(s.http.get("/api/queues/orders/jobs?state=" + state).status()).as(state).isEqualTo(200);
                }
                assertThat(s.http.get("/api/queues/orders/jobs/d1").json().get("error").asText()).isEqualTo("boom");
                assertThat(s.http.get("/api/queues/orders/history?minutes=60").status()).isEqualTo(200);
                assertThat(s.http.post("/api/queues/orders/jobs/d1/retry").status()).isEqualTo(200);
                assertThat(s.http.post("/api/queues/orders/dead/retry-all").json().get("retried").asLong()).isEqualTo(1);
                assertThat(s.http.post("/api/queues/orders/jobs/s1/run-now").status()).isEqualTo(200);
                assertThat(s.http.post("/api/queues/orders/jobs/s2/reschedule?delay=1h").status()).isEqualTo(200);
                assertThat(s.http.post("/api/queues/orders/jobs/s3/cancel").status()).isEqualTo(200);
                assertThat(s.http.delete("/api/queues/orders/jobs/c1").status()).isEqualTo(200);
                assertThat(s.http.post("/api/queues/orders/pause").status()).isEqualTo(200);
                assertThat(s.http.post("/api/queues/orders/resume").status()).isEqualTo(200);
                // Flows and groups (issues 40, 41): a parent with more than 1,000 children is read by a bounded scan.
                JobQueue flows = s.dq.queue("flows");
                flows.enqueue(dev.delayq.Job.builder().id("root").delay(java.time.Duration.ofHours(1)).build());
                flows.enqueueAll(java.util.stream.IntStream.range(0, 1_001)
                        .mapToObj(i -> dev.delayq.Job.builder().id("kid-" + i).after("root").build()).toList());
                assertThat(s.http.get("/api/queues/flows/jobs/root").json().get("children").get("jobs").size())
                        .isEqualTo(Api.CHILDREN_SHOWN);
                assertThat(s.http.get("/api/queues/flows/jobs/kid-7").json().get("parents").get("jobs").get(0)
                        .get("id").asText()).isEqualTo("root");
                assertThat(s.http.get("/api/queues/flows/jobs?state=waiting").status()).isEqualTo(200);
                orders.enqueue(dev.delayq.Job.builder().id("g1").group("tenant-1").delay(java.time.Duration.ofHours(1)).build());
                assertThat(s.http.get("/api/queues/orders/groups").json().get("top").get(0).get("group").asText())
                        .isEqualTo("tenant-1");
                Http.Response metrics = s.http.get("/metrics");
                assertThat(metrics.status()).isEqualTo(200);
                assertThat(metrics.body()).contains("delayq_jobs{queue=\"orders\",state=\"scheduled\"}",
                        "delayq_group_jobs{group=\"tenant-1\",queue=\"orders\",state=\"scheduled\"} 1.0",
                        "delayq_jobs{queue=\"flows\",state=\"waiting\"} 1001.0");

                assertThat(orders.get("d1").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
                assertThat(orders.get("s3")).isEmpty();
                assertThat(orders.get("c1")).isEmpty();
            }
            assertThat(refusals(server)).as("ACL LOG after the dashboard's work").isEmpty();
        }
    }

    /** {@code ACL LOG} entries but for {@code CONFIG GET} (the optional eviction-policy check, skipped when refused). */
    private static List<String> refusals(RedisServer server) {
        Object log = server.call("ACL", "LOG");
        List<String> out = new ArrayList<>();
        if (log instanceof List<?> entries) {
            for (Object e : entries) {
                String entry = String.valueOf(e);
                if (!entry.contains("config|get") && !entry.contains("object, config,") && !entry.contains("object, client,")) {
                    out.add(entry);
                }
            }
        }
        return out;
    }
}
