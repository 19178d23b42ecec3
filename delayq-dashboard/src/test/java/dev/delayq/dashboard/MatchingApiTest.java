package dev.delayq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.ClaimOptions;
import dev.delayq.ClaimedJob;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Retry and delete of every job matching a list's filter across pages ({@link MatchingApi}), over real HTTP: the count
 * the confirmation shows, the change in bounded requests repeated with {@code from} until {@code more} is false, the
 * jobs not matching the search left as they were, on a queue without partitions and one of three.
 */
class MatchingApiTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    /** Kills {@code n} jobs named {@code prefix<i>} with {@code error}. */
    private static List<String> kill(JobQueue q, String prefix, int n, String error) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(prefix + i);
            q.enqueue(Job.builder().id(prefix + i).payload("p").build());
        }
        int left = n;
        while (left > 0) {
            List<ClaimedJob> got = q.leases().claim(ClaimOptions.of(Math.min(left, 1000), Duration.ofMinutes(1))).jobs();
            for (ClaimedJob j : got) {
                q.leases().fail(j.lease(), error, false, Duration.ZERO);
            }
            left -= got.size();
        }
        return ids;
    }

    /** Repeats the change until it says there is no more; returns the jobs changed and the requests it took. */
    private static long[] runAll(Served s, String path) {
        long changed = 0;
        long requests = 0;
        String from = null;
        while (true) {
            Http.Response r = s.http.post(path + (from == null ? "" : "&from=" + from));
            assertThat(r.status()).as(r.toString()).isEqualTo(200);
            requests++;
            JsonNode j = r.json();
            changed += j.get("changed").asLong();
            if (!j.get("more").asBoolean()) {
                return new long[] {changed, requests};
            }
            from = j.get("from").asText();
        }
    }

    @ParameterizedTest(name = "partitions {0}")
    @ValueSource(ints = {1, 3})
    void retryAllMatchingASearchAcrossPagesLeavesTheOthersDead(int partitions) {
        try (Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            JobQueue q = s.dq.queue("bulk" + partitions, partitions);
            kill(q, "t", 2_300, "timeout talking to bank");
            kill(q, "c", 700, "card declined");
            String base = "/api/queues/bulk" + partitions;

            JsonNode count = s.http.get(base + "/matching?state=dead&q=TIMEOUT").json();
            assertThat(count.get("count").asLong()).isEqualTo(2_300);
            assertThat(count.get("exact").asBoolean()).isTrue();
            assertThat(s.http.get(base + "/matching?state=dead").json().get("count").asLong()).isEqualTo(3_000);

            long[] done = runAll(s, base + "/matching/retry?state=dead&q=timeout");
            assertThat(done[0]).isEqualTo(2_300);
            assertThat(done[1]).as("more than one bounded request").isGreaterThan(1);
            var stats = q.inspector().stats();
            assertThat(stats.dead()).isEqualTo(700);
            assertThat(stats.scheduled()).isEqualTo(2_300);
            assertThat(q.inspector().stream(JobState.DEAD).allMatch(j -> j.lastError().equals("card declined"))).isTrue();

            // Delete every ready job matching "t1" (t1, t10-t19, t100-t199, t1000-t1999): 1,111 of them.
            assertThat(s.http.get(base + "/matching?state=ready&q=t1").json().get("count").asLong()).isEqualTo(1_111);
            assertThat(runAll(s, base + "/matching/delete?state=ready&q=t1")[0]).isEqualTo(1_111);
            assertThat(q.get("t1")).isEmpty();
            assertThat(q.get("t2")).isPresent();
            assertThat(q.inspector().stats().scheduled()).isEqualTo(2_300 - 1_111);

            // Without search text: every dead job.
            assertThat(runAll(s, base + "/matching/delete?state=dead")[0]).isEqualTo(700);
            assertThat(q.inspector().stats().dead()).isZero();
        }
    }

    @Test
    void retryOfOtherStatesAndDeleteOfRunningJobsAre400() {
        try (Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            Seed.scheduled(s.dq.queue("orders"), "s1");
            Http.Response retry = s.http.post("/api/queues/orders/matching/retry?state=scheduled");
            assertThat(retry.status()).isEqualTo(400);
            assertThat(retry.error()).contains("retry applies to dead jobs");
            assertThat(s.http.post("/api/queues/orders/matching/delete?state=processing").status()).isEqualTo(400);
            assertThat(s.http.post("/api/queues/orders/matching/delete?state=finished").error()).contains("state is 'finished'");
            assertThat(s.http.post("/api/queues/orders/matching/delete?state=dead&from=-1").status()).isEqualTo(400);
            assertThat(s.http.post("/api/queues/nope/matching/delete?state=dead").status()).isEqualTo(404);
            assertThat(s.dq.queue("orders").get("s1")).isPresent();
        }
    }
}
