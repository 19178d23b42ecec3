package dev.delayq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Twelve jobs of 10 MB listed and previewed (issue 43): the scripts cut each payload to its 4 KiB preview, so what Redis
 * sends for a page (its own server's {@code total_net_output_bytes}, a server of this class alone) and what the
 * dashboard answers stay in kilobytes, where the whole payloads are 120 MB.
 */
class LargePayloadPageTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.dedicated(b -> { });
    private static final int TEN_MB = 10 * 1024 * 1024;

    private static long redisSent() {
        return Long.parseLong(REDIS.server().info("stats").get("total_net_output_bytes"));
    }

    @Test
    void aPageOfTwelve10MbJobsCarriesOnlyTheirPreviews() {
        try (DelayQ producer = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).maxPayloadBytes(16 * 1024 * 1024).build();
             Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            JobQueue big = producer.queue("big");
            byte[] payload = new byte[TEN_MB];
            Arrays.fill(payload, (byte) 'x');
            for (int i = 0; i < 12; i++) {
                big.enqueue(Job.builder().id("big-" + i).payload(payload).delay(Duration.ofHours(1 + i)).build());
            }

            long before = redisSent();
            Http.Response page = s.http.get("/api/queues/big/jobs?state=scheduled&limit=50");
            long pageFromRedis = redisSent() - before;
            assertThat(page.status()).as(page.toString().substring(0, Math.min(300, page.toString().length()))).isEqualTo(200);
            JsonNode jobs = page.json().get("jobs");
            assertThat(jobs).hasSize(12);
            for (JsonNode j : jobs) {
                assertThat(j.get("payloadBytes").asLong()).isEqualTo(TEN_MB);
                assertThat(j.get("payloadPreviewBytes").asInt()).isEqualTo(Dashboard.PAYLOAD_PREVIEW_BYTES);
                assertThat(j.get("payloadTruncated").asBoolean()).isTrue();
                assertThat(j.get("payload").asText()).isEqualTo("x".repeat(Dashboard.PAYLOAD_PREVIEW_BYTES));
            }

            before = redisSent();
            Http.Response one = s.http.get("/api/queues/big/jobs/big-3");
            long jobFromRedis = redisSent() - before;
            assertThat(one.json().get("payloadBytes").asLong()).isEqualTo(TEN_MB);

            // The same page read whole, as before the previews were cut in the scripts: for the figure.
            before = redisSent();
            assertThat(s.dq.inspector("big").list(JobState.SCHEDULED, 0, 50)).hasSize(12);
            long wholeFromRedis = redisSent() - before;

            System.out.printf("12 jobs of 10 MB: a page sent %,d bytes from Redis (%,d bytes of HTTP answer), one job %,d bytes "
                    + "(%,d bytes of HTTP); the same page read whole %,d bytes%n", pageFromRedis, page.bytes(), jobFromRedis,
                    one.bytes(), wholeFromRedis);
            assertThat(pageFromRedis).as("Redis's reply for the page").isLessThan(512 * 1024);
            assertThat(page.bytes()).as("the HTTP answer").isLessThan(512 * 1024);
            assertThat(jobFromRedis).as("Redis's reply for one job").isLessThan(64 * 1024);
            assertThat(wholeFromRedis).as("the whole payloads, for comparison").isGreaterThan(12L * TEN_MB);
        }
    }
}
