package dev.delayq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.JobQueue;
import dev.delayq.testkit.RedisExtension;
import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.UncheckedIOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code /metrics} of the dashboard, and the worker's {@link MetricsServer}, scraped over real HTTP. */
class MetricsTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    @Test
    void metricsHasJobsPerQueueAndStateInThePrometheusFormat() {
        try (Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            JobQueue orders = s.dq.queue("orders");
            Seed.scheduled(orders, "s1", "s2");
            Seed.dead(orders, "boom", "d1");
            Seed.done(s.dq.queue("mail"), "m1");
            Http.Response r = s.http.get("/metrics");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("Content-Type")).startsWith("text/plain; version=0.0.4");
            assertThat(r.body()).contains("# TYPE delayq_jobs gauge",
                    "delayq_jobs{queue=\"orders\",state=\"scheduled\"} 2.0",
                    "delayq_jobs{queue=\"orders\",state=\"processing\"} 0.0",
                    "delayq_jobs{queue=\"orders\",state=\"done\"} 0.0",
                    "delayq_jobs{queue=\"orders\",state=\"dead\"} 1.0",
                    "delayq_jobs{queue=\"mail\",state=\"done\"} 1.0");

            // Read when scraped: a change shows at the next scrape.
            assertThat(s.http.post("/api/queues/orders/dead/retry-all").status()).isEqualTo(200);
            assertThat(s.http.get("/metrics").body()).contains("delayq_jobs{queue=\"orders\",state=\"scheduled\"} 3.0",
                    "delayq_jobs{queue=\"orders\",state=\"dead\"} 0.0");
        }
    }

    @Test
    void metricsHasTheOldestDueJobsLagAndWhetherTheQueueIsPaused() {
        try (Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            JobQueue orders = s.dq.queue("orders");
            java.time.Instant now = s.dq.serverTime();
            orders.enqueue(dev.delayq.Job.builder().id("late").runAt(now.minusSeconds(90)).build());
            Seed.scheduled(s.dq.queue("mail"), "m1");
            String body = s.http.get("/metrics").body();
            assertThat(body).contains("# TYPE delayq_oldest_due_lag_seconds gauge",
                    "delayq_oldest_due_lag_seconds{queue=\"mail\"} 0.0",
                    "delayq_queue_paused{queue=\"orders\"} 0.0");
            double lag = value(body, "delayq_oldest_due_lag_seconds{queue=\"orders\"}");
            assertThat(lag).isBetween(90.0, 90.0 + 120);
            assertThat(s.http.get("/api/queues/orders").json().get("oldestDueLagMillis").asLong()).isBetween(90_000L, 210_000L);

            assertThat(s.http.post("/api/queues/orders/pause").status()).isEqualTo(200);
            assertThat(s.http.get("/metrics").body()).contains("delayq_queue_paused{queue=\"orders\"} 1.0");
        }
    }

    @Test
    void metricsCountTheJobsKeptPastTheirRetentionOnceAWorkerHasPurged() {
        try (Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            Seed.done(s.dq.queue("mail"), "m1", "m2");
            Seed.dead(s.dq.queue("mail"), "boom", "d1");
            assertThat(s.http.get("/metrics").body()).as("no worker has purged: the retention is not known")
                    .doesNotContain("delayq_jobs_past_retention");
            // What a worker's purge pass records: the retention it purges by (here, nothing is kept).
            REDIS.server().call("HSET", REDIS.prefix() + ":{mail}:meta", "keep_done", "0", "keep_dead", "0");
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
                    .until(() -> value(s.http.get("/metrics").body(), "delayq_jobs_past_retention{queue=\"mail\"}") == 3.0);
            assertThat(s.http.get("/api/queues/mail").json().get("pastRetention").asLong()).isEqualTo(3);
        }
    }

    private static double value(String exposition, String series) {
        return exposition.lines().filter(l -> l.startsWith(series + " ")).mapToDouble(l -> Double.parseDouble(
                l.substring(series.length() + 1).strip())).findFirst().orElseThrow(() -> new AssertionError(series
                + " not in " + exposition));
    }

    @Test
    void anApplicationsRegistryIsServedWithTheQueueGauges() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Counter.builder("delayq.jobs.completed").tag("queue", "orders").register(registry).increment(5);
        try (Served s = Served.start(REDIS.uri(), REDIS.prefix(), b -> b.registry(registry), null)) {
            Seed.scheduled(s.dq.queue("orders"), "s1");
            String body = s.http.get("/metrics").body();
            assertThat(body).contains("delayq_jobs_completed_total{queue=\"orders\"} 5.0",
                    "delayq_jobs{queue=\"orders\",state=\"scheduled\"} 1.0");
        }
        // The dashboard's gauges leave with it; the application's meters stay.
        assertThat(registry.scrape()).contains("delayq_jobs_completed_total").doesNotContain("delayq_jobs{");
        registry.close();
    }

    @Test
    void theMetricsServerServesARegistryOnItsOwnPort() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Counter completed = Counter.builder("delayq.jobs.completed").tag("queue", "orders").register(registry);
        completed.increment(3);
        try (MetricsServer server = MetricsServer.builder(registry).port(0).build().start()) {
            Http http = new Http("http://127.0.0.1:" + server.port());
            Http.Response r = http.get("/metrics");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("Content-Type")).startsWith("text/plain; version=0.0.4");
            assertThat(r.body()).contains("# TYPE delayq_jobs_completed_total counter",
                    "delayq_jobs_completed_total{queue=\"orders\"} 3.0");
            completed.increment();
            assertThat(http.get("/metrics").body()).contains("delayq_jobs_completed_total{queue=\"orders\"} 4.0");
            assertThat(http.get("/").status()).isEqualTo(404);
            assertThat(http.get("/metrics/x").status()).isEqualTo(404);
            assertThat(http.post("/metrics").status()).isEqualTo(405);

            assertThatThrownBy(() -> MetricsServer.builder(registry).port(server.port()).build().start())
                    .isInstanceOf(UncheckedIOException.class)
                    .hasMessageStartingWith("cannot listen on 127.0.0.1:" + server.port() + " for metrics");
        }
        assertThatThrownBy(() -> MetricsServer.builder(registry).port(70000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("metrics port is 70000: it must be 0 to 65535");
        registry.close();
    }
}
