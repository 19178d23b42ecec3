package dev.delayq.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.delayq.DelayQ;
import dev.delayq.DelayQException;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.Limits;
import dev.delayq.NonRetryableException;
import dev.delayq.RetryPolicy;
import dev.delayq.Worker;
import dev.delayq.dashboard.Dashboard;
import dev.delayq.micrometer.MicrometerMetrics;
import dev.delayq.micrometer.MicrometerProducerMetrics;
import dev.delayq.testkit.RedisExtension;
import dev.delayq.testkit.RedisServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * docs/grafana/delayq.json and docs/prometheus/delayq-alerts.yml name only metrics that exist: every {@code delayq_*}
 * name in their PromQL is a series of a real scrape of the dashboard's {@code /metrics}, served with a registry that
 * holds the worker's and the producer's Micrometer meters, after real jobs ran on a private Redis (completed, retried,
 * dead, rate-limited, enqueued, duplicated, failed to enqueue). The rules also pass {@code promtool check rules} and
 * their unit tests ({@code promtool test rules}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GrafanaAndAlertsTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.dedicated(b -> { });
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Pattern METRIC = Pattern.compile("\\bdelayq_[a-zA-Z0-9_]+");
    private static final Path ROOT = root();

    private Set<String> scraped;

    @BeforeAll
    void scrapeTheDashboardAfterRealJobs() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        RetryPolicy quick = RetryPolicy.builder().maxAttempts(2).base(Duration.ofMillis(10)).cap(Duration.ofMillis(20)).build();
        try (DelayQ dq = DelayQ.builder().redis(REDIS.uri()).prefix("grafana")
                .producerMetrics(new MicrometerProducerMetrics(registry)).build()) {
            JobQueue orders = dq.queue("orders");
            JobQueue limited = dq.queue("limited");
            limited.inspector().limits(Limits.rate(1, Duration.ofHours(1)));
            orders.enqueue(Job.builder().id("ok").build());
            orders.enqueue(Job.builder().id("ok").build()); // a duplicate
            orders.enqueue(Job.builder().id("flaky").build());
            orders.enqueue(Job.builder().id("broken").build());
            orders.enqueue(Job.builder().id("later").delay(Duration.ofHours(1)).build());
            limited.enqueueAll(List.of(Job.builder().id("l1").build(), Job.builder().id("l2").build()));
            try (RedisServer down = RedisServer.start();
                 DelayQ downClient = DelayQ.builder().redis(down.uri()).timeout(Duration.ofMillis(500))
                         .producerMetrics(new MicrometerProducerMetrics(registry)).build()) {
                JobQueue q = downClient.queue("orders");
                down.kill();
                try {
                    q.enqueue(Job.builder().id("lost").build());
                } catch (DelayQException expected) {
                    // counted as delayq_enqueue_errors_total{queue="orders", error=...}
                }
            }
            MicrometerMetrics workerMetrics = new MicrometerMetrics(registry, Duration.ZERO);
            try (Worker w1 = Worker.builder(orders, ctx -> {
                        if (ctx.id().equals("broken")) {
                            throw new NonRetryableException("broken for good");
                        }
                        if (ctx.id().equals("flaky") && ctx.attempt() == 1) {
                            throw new IllegalStateException("first attempt fails");
                        }
                    }).name("w1").retryPolicy(quick).purgeInterval(Duration.ofMillis(200)).metrics(workerMetrics).build().start();
                 Worker w2 = Worker.builder(limited, ctx -> { }).name("w2").purgeInterval(Duration.ofMillis(200))
                         .metrics(workerMetrics).build().start();
                 Dashboard dashboard = Dashboard.builder(dq).port(0).registry(registry).build().start()) {
                await().atMost(WAIT).until(() -> orders.inspector().stats().done() == 2 && orders.inspector().stats().dead() == 1
                        && orders.inspector().stats().pastRetention() >= 0);
                await().atMost(WAIT).until(() -> registry.find("delayq.claims.limited").counters().stream()
                        .mapToDouble(c -> c.count()).sum() > 0);
                HttpClient http = HttpClient.newHttpClient();
                HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + dashboard.port() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(metrics.statusCode()).isEqualTo(200);
                scraped = seriesNames(metrics.body());
            }
        }
        assertThat(scraped).as("the dashboard's queue gauges, the worker's and the producer's meters in one scrape")
                .contains("delayq_jobs", "delayq_oldest_due_lag_seconds", "delayq_jobs_completed_total",
                        "delayq_dispatch_lag_seconds_bucket", "delayq_jobs_enqueued_total", "delayq_jobs_duplicates_total",
                        "delayq_enqueue_errors_total", "delayq_enqueue_latency_seconds_bucket", "delayq_claims_limited_total");
    }

    @Test
    void everyMetricOfTheGrafanaDashboardExists() throws IOException {
        JsonNode dashboard = new ObjectMapper().readTree(ROOT.resolve("docs/grafana/delayq.json").toFile());
        List<String> queries = new ArrayList<>();
        collectQueries(dashboard, queries);
        assertThat(queries).as("the panels' queries and the queue variable's").hasSizeGreaterThan(20);
        for (String q : queries) {
            assertThat(names(q)).as("a metric in " + q).isNotEmpty();
        }
        assertThat(missing(queries, scraped)).as("metrics the Grafana dashboard names that no scrape has").isEmpty();
        List<String> titles = new ArrayList<>();
        dashboard.get("panels").forEach(p -> titles.add(p.get("title").asText()));
        assertThat(titles).contains("Throughput", "Lag", "Backlog by state", "Dead growth", "Retries", "Rate-limit waits",
                "Workers");
    }

    @Test
    void everyMetricOfTheAlertRulesExists() throws IOException {
        String rules = Files.readString(ROOT.resolve("docs/prometheus/delayq-alerts.yml"));
        assertThat(names(rules)).hasSizeGreaterThan(4);
        assertThat(missing(List.of(rules), scraped)).as("metrics the alert rules name that no scrape has").isEmpty();
        assertThat(rules).contains("alert: DelayqOldestDueJobLate", "alert: DelayqDeadJobsGrowing",
                "alert: DelayqKeptJobsGrowing", "alert: DelayqNoWorkerConsuming");
    }

    @Test
    void aMetricThatNoScrapeHasIsReported() {
        assertThat(missing(List.of("sum(rate(delayq_jobs_completed_total[5m])) / rate(delayq_jobs_vanished_total[5m])"),
                scraped)).containsExactly("delayq_jobs_vanished_total");
    }

    @Test
    void theAlertRulesParseAndPassTheirUnitTests() throws Exception {
        assumeThat(new File("/usr/bin/promtool").canExecute() || onPath("promtool"))
                .as("promtool is not installed (Debian package prometheus)").isTrue();
        Path dir = ROOT.resolve("docs/prometheus");
        assertThat(run(dir, "promtool", "check", "rules", "delayq-alerts.yml")).contains("SUCCESS: 4 rules found");
        assertThat(run(dir, "promtool", "test", "rules", "delayq-alerts.test.yml")).contains("SUCCESS");
    }

    private static String run(Path dir, String... command) throws Exception {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("promtool ended").isTrue();
        assertThat(p.exitValue()).as(String.join(" ", command) + " said:\n" + out).isZero();
        return out;
    }

    private static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (new File(dir, tool).canExecute()) {
                return true;
            }
        }
        return false;
    }

    /** Every PromQL text of a Grafana dashboard: the targets' {@code expr} and the template variables' queries. */
    private static void collectQueries(JsonNode node, List<String> out) {
        if (node.isObject()) {
            node.fields().forEachRemaining(e -> {
                if ((e.getKey().equals("expr") || e.getKey().equals("definition")) && e.getValue().isTextual()) {
                    out.add(e.getValue().asText());
                } else {
                    collectQueries(e.getValue(), out);
                }
            });
        } else if (node.isArray()) {
            node.forEach(n -> collectQueries(n, out));
        }
    }

    private static Set<String> names(String promql) {
        Set<String> names = new TreeSet<>();
        Matcher m = METRIC.matcher(promql);
        while (m.find()) {
            names.add(m.group());
        }
        return names;
    }

    private static Set<String> missing(List<String> texts, Set<String> scraped) {
        Set<String> missing = new TreeSet<>();
        texts.forEach(t -> missing.addAll(names(t)));
        missing.removeAll(scraped);
        return missing;
    }

    /** The names of the samples of a Prometheus text exposition (histogram series with their _bucket/_count/_sum). */
    private static Set<String> seriesNames(String exposition) {
        Set<String> names = new TreeSet<>();
        for (String line : exposition.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int end = 0;
            while (end < line.length() && line.charAt(end) != '{' && line.charAt(end) != ' ') {
                end++;
            }
            names.add(line.substring(0, end));
        }
        return names;
    }

    /** The repository's root: the build's (the surefire property), else the parent of this module's directory. */
    private static Path root() {
        String root = System.getProperty("delayq.build.root");
        Path path = root != null && !root.isBlank() ? Path.of(root) : Path.of("").toAbsolutePath().getParent();
        if (!Files.isDirectory(path.resolve("delayq-docs"))) {
            path = Path.of("").toAbsolutePath().getParent();
        }
        return path.toAbsolutePath().normalize();
    }
}
