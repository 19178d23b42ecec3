package dev.delayq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.ClaimOptions;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.Limits;
import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Flows and groups (issues 40 and 41) over real HTTP: {@code waiting} in a queue's counts and its jobs, a job's
 * parents and waiting children with their states, a queue's top groups ({@code /groups}), and {@code /metrics}'
 * {@code delayq_jobs{state="waiting"}} and top-N group series with the rest under {@code group="(other)"}, read only for
 * queues that have groups.
 */
class FlowsAndGroupsApiTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.dedicated(b -> { });

    private static List<String> ids(JsonNode jobs) {
        List<String> out = new ArrayList<>();
        jobs.forEach(j -> out.add(j.get("id").asText() + ":" + j.get("state").asText()));
        return out;
    }

    @Test
    void aQueueCountsItsWaitingJobsAndAJobListsItsParentsAndChildrenWithTheirStates() {
        try (Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            JobQueue q = s.dq.queue("reports");
            q.enqueue(Job.builder().id("part-1").build());
            q.enqueue(Job.builder().id("part-2").delay(Duration.ofHours(1)).build());
            q.enqueue(Job.builder().id("summary").after("part-1", "part-2").build());
            for (int i = 0; i < 24; i++) {
                q.enqueue(Job.builder().id(String.format("n-%02d", i)).after("part-1").build());
            }
            assertThat(s.http.get("/api/queues/reports").json().get("waiting").asLong()).isEqualTo(25);
            JsonNode page = s.http.get("/api/queues/reports/jobs?state=waiting&limit=2").json();
            assertThat(page.get("total").asLong()).isEqualTo(25);
            assertThat(page.get("state").asText()).isEqualTo("waiting");
            assertThat(page.get("jobs")).hasSize(2);
            // By enqueue time (the ms; within one ms by id): every waiting job on a page of 25.
            List<String> all = ids(s.http.get("/api/queues/reports/jobs?state=waiting&limit=25").json().get("jobs"));
            assertThat(all).hasSize(25).contains("summary:waiting", "n-00:waiting", "n-23:waiting");

            JsonNode child = s.http.get("/api/queues/reports/jobs/summary").json();
            assertThat(child.get("parents").get("pending").asInt()).isEqualTo(2);
            assertThat(child.get("parents").get("onParentDead").asText()).isEqualTo("dead");
            assertThat(ids(child.get("parents").get("jobs"))).containsExactly("part-1:scheduled", "part-2:scheduled");
            assertThat(child.has("children")).isFalse();

            JsonNode parent = s.http.get("/api/queues/reports/jobs/part-1").json();
            assertThat(parent.has("parents")).isFalse();
            assertThat(parent.get("children").get("waiting").asLong()).isEqualTo(25);
            assertThat(parent.get("children").get("more").asLong()).isEqualTo(25 - Api.CHILDREN_SHOWN);
            List<String> shown = ids(parent.get("children").get("jobs"));
            assertThat(shown).hasSize(Api.CHILDREN_SHOWN).first().isEqualTo("summary:waiting");
            assertThat(shown.get(1)).isEqualTo("n-00:waiting");

            // part-1 done: the other children are released, summary still waits for part-2 and says part-1 is done.
            q.leases().complete(q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1))).jobs().get(0).lease());
            child = s.http.get("/api/queues/reports/jobs/summary").json();
            assertThat(ids(child.get("parents").get("jobs"))).containsExactly("part-1:done", "part-2:scheduled");
            assertThat(child.get("parents").get("done").asInt()).isEqualTo(1);
            assertThat(s.http.get("/api/queues/reports").json().get("waiting").asLong()).isEqualTo(1);
            // A job outside flows carries neither key.
            JsonNode plain = s.http.get("/api/queues/reports/jobs/n-03").json();
            assertThat(plain.has("parents") || plain.has("children")).isFalse();
        }
    }

    @Test
    void groupsListsTheLargestBacklogsWithTheirLimitsAndRefusesABadTop() {
        try (Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            JobQueue q = s.dq.queue("tenants");
            enqueueGroups(q, 3);
            q.inspector().groupLimits(Limits.ofConcurrency(2));
            q.inspector().groupWeight("g-2", 3);
            assertThat(s.http.get("/api/queues/tenants").json().get("groups").asLong()).isEqualTo(3);
            JsonNode g = s.http.get("/api/queues/tenants/groups").json();
            assertThat(g.get("queue").asText()).isEqualTo("tenants");
            assertThat(g.get("groups").asLong()).isEqualTo(3);
            assertThat(g.get("groupConcurrency").asInt()).isEqualTo(2);
            assertThat(g.get("top").get(0).get("group").asText()).isEqualTo("g-2");
            assertThat(g.get("top").get(0).get("scheduled").asLong()).isEqualTo(3);
            assertThat(g.get("top").get(0).get("weight").asInt()).isEqualTo(3);
            assertThat(g.get("top").get(0).get("concurrency").asInt()).isEqualTo(2);
            assertThat(s.http.get("/api/queues/tenants/groups?top=1").json().get("top")).hasSize(1);
            Http.Response bad = s.http.get("/api/queues/tenants/groups?top=0");
            assertThat(bad.status()).isEqualTo(400);
            assertThat(bad.error()).isEqualTo("top is '0': it must be a whole number from 1 to " + Api.MAX_GROUPS);
            assertThat(s.http.get("/api/queues/nope/groups").status()).isEqualTo(404);
        }
    }

    /** Groups g-0 .. g-(n-1), group g-i with i + 1 scheduled jobs. */
    private static void enqueueGroups(JobQueue q, int n) {
        enqueueGroups(q, n, Duration.ofHours(1));
    }

    private static void enqueueGroups(JobQueue q, int n, Duration delay) {
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            for (int k = 0; k <= i; k++) {
                jobs.add(Job.builder().id("g-" + i + "-" + k).group("g-" + i).delay(delay).build());
            }
        }
        q.enqueueAll(jobs);
    }

    private static final Pattern CALLS = Pattern.compile("cmdstat_(evalsha|eval):calls=(\\d+)");

    /** Script calls Redis has served so far. */
    private static long scriptCalls() {
        Matcher m = CALLS.matcher(String.valueOf(REDIS.server().call("INFO", "commandstats")));
        long n = 0;
        while (m.find()) {
            n += Long.parseLong(m.group(2));
        }
        return n;
    }

    @Test
    void metricsHaveTheWaitingJobsAndTheTopGroupsOfEachQueueWithTheRestUnderOther() {
        try (Served s = Served.start(REDIS.uri(), REDIS.prefix(), b -> b.metricsGroupLimit(2), null)) {
            JobQueue plain = s.dq.queue("plain");
            plain.enqueue(Job.builder().id("p").build());
            plain.enqueue(Job.builder().id("c").after("p").build());
            s.http.get("/metrics"); // the scripts loaded
            long before = scriptCalls();
            String body = s.http.get("/metrics").body();
            long plainScrape = scriptCalls() - before;
            assertThat(body).contains("delayq_jobs{queue=\"plain\",state=\"waiting\"} 1.0")
                    .doesNotContain("delayq_group_jobs{").doesNotContain("delayq_groups{");

            JobQueue tenants = s.dq.queue("tenants");
            enqueueGroups(tenants, 4, Duration.ZERO); // g-3: 4 jobs, g-2: 3, g-1: 2, g-0: 1
            assertThat(tenants.leases().claim(ClaimOptions.of(3, Duration.ofMinutes(1))).jobs()).hasSize(3);
            s.http.get("/metrics");
            before = scriptCalls();
            String grouped = s.http.get("/metrics").body();
            assertThat(scriptCalls() - before).as("one group_stats call for the queue with groups, none for the other")
                    .isEqualTo(plainScrape + 1);
            List<String> series = grouped.lines().filter(l -> l.startsWith("delayq_group_jobs{")).sorted().toList();
            // The top 2 by backlog get their own label; the others are added up under (other).
            assertThat(series).hasSize(6).allMatch(l -> l.contains("queue=\"tenants\""));
            long ownScheduled = IntStream.range(0, 4)
                    .filter(i -> grouped.contains("group=\"g-" + i + "\",queue=\"tenants\",state=\"scheduled\"")).count();
            assertThat(ownScheduled).isEqualTo(2);
            double total = series.stream().filter(l -> l.contains("state=\"scheduled\"")).mapToDouble(FlowsAndGroupsApiTest::value).sum()
                    + series.stream().filter(l -> l.contains("state=\"running\"")).mapToDouble(FlowsAndGroupsApiTest::value).sum();
            assertThat(total).as("every grouped job counted once: scheduled or running").isEqualTo(10.0);
            assertThat(grouped).contains("delayq_groups{queue=\"tenants\"} 4.0");
            assertThat(series).anyMatch(l -> l.startsWith("delayq_group_jobs{group=\"(other)\",queue=\"tenants\",state=\"scheduled\"}"));
        }
    }

    private static double value(String line) {
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
    }

    @Test
    void thePagesAreToldTheRefreshInterval() {
        try (Served s = Served.start(REDIS.uri(), REDIS.prefix(), b -> b.refresh(Duration.ofSeconds(2)), null)) {
            assertThat(s.http.get("/").body()).contains("data-refresh=\"2000\"");
            assertThat(s.http.get("/queues/q/jobs/j").body()).contains("data-refresh=\"2000\"");
        }
        try (Served s = Served.open(REDIS.uri(), REDIS.prefix())) {
            assertThat(s.http.get("/").body()).contains("data-refresh=\"5000\"");
        }
    }

    @Test
    void theGroupLabelCapAndTheRefreshIntervalAreChecked() {
        try (dev.delayq.DelayQ dq = dev.delayq.DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).build()) {
            assertThatThrownBy(() -> Dashboard.builder(dq).metricsGroupLimit(0)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("metrics group limit is 0: it must be 1 to 1000");
            assertThatThrownBy(() -> Dashboard.builder(dq).refresh(Duration.ofMillis(50))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("refresh interval is PT0.05S: it must be 100 ms to 1 h");
            assertThatThrownBy(() -> DashboardServlet.builder(dq).refresh(Duration.ofHours(2)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("refresh interval is PT2H: it must be 100 ms to 1 h");
        }
    }
}
