package dev.delayq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.internal.WorkerBeat;
import dev.delayq.internal.queue.RedisQueue;
import dev.delayq.testkit.RedisExtension;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The overview's refresh ({@code /api/queues}) and a scrape of {@code /metrics} cost a bounded number of Redis
 * commands however many queues there are, the live worker counts included: counted with {@code INFO commandstats} on a
 * private Redis, for 500 queues with workers (some partitioned).
 */
class ManyQueuesRequestsTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.dedicated(b -> { });

    /** What stats_many.lua and workers.lua run (counted by INFO inside the script calls), and the script calls. */
    private static final java.util.Set<String> SCRIPTED = java.util.Set.of("evalsha", "eval", "type", "zcard", "zcount",
            "hgetall", "time", "zrange", "zrangebyscore", "hget", "hmget", "zrevrange");

    private static final Pattern CALLS = Pattern.compile("cmdstat_([a-z|]+):calls=(\\d+)");

    /** Every command served so far, by name (the INFO calls that read them left out). */
    private static Map<String, Long> commands() {
        Object info = REDIS.server().call("INFO", "commandstats");
        String s = info instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(info);
        Map<String, Long> out = new HashMap<>();
        Matcher m = CALLS.matcher(s);
        while (m.find()) {
            if (!m.group(1).equals("info")) {
                out.put(m.group(1), Long.parseLong(m.group(2)));
            }
        }
        return out;
    }

    /** Script calls since {@code before} (INFO counts the commands a script runs too, so scripts are counted apart). */
    private static long scriptCalls(Map<String, Long> before) {
        Map<String, Long> now = commands();
        long n = 0;
        for (String c : List.of("evalsha", "eval")) {
            n += now.getOrDefault(c, 0L) - before.getOrDefault(c, 0L);
        }
        return n;
    }

    /** Commands since {@code before} that no script of a refresh runs: those the dashboard sends outside scripts. */
    private static long plainCommands(Map<String, Long> before) {
        Map<String, Long> now = commands();
        long n = 0;
        for (Map.Entry<String, Long> e : now.entrySet()) {
            if (!SCRIPTED.contains(e.getKey())) {
                n += e.getValue() - before.getOrDefault(e.getKey(), 0L);
            }
        }
        return n;
    }

    @Test
    void fiveHundredQueuesWithWorkersCostABoundedNumberOfCommandsPerRefresh() {
        try (Served s = Served.withToken(REDIS.uri(), REDIS.prefix())) {
            for (int i = 0; i < 500; i++) {
                JobQueue q = i % 50 == 0 ? s.dq.queue("q" + i, 3) : s.dq.queue("q" + i);
                q.enqueue(Job.builder().id("j").payload("p").build());
                var parts = RedisQueue.of(q).partitions();
                for (int w = 0; w < i % 3; w++) {
                    parts.get(w % parts.size()).workerBeat(new WorkerBeat("w" + w, "w" + w, "h", 1, List.of("q" + i), 1, 0,
                            "t", List.of()), 600_000).join();
                }
            }
            s.http.get("/api/queues").json(); // the first read of each queue reads its partition count once
            s.http.get("/metrics");

            Map<String, Long> before = commands();
            JsonNode all = s.http.get("/api/queues").json();
            long refresh = scriptCalls(before);
            long refreshOther = plainCommands(before);
            before = commands();
            String metrics = s.http.get("/metrics").body();
            long scrape = scriptCalls(before);
            long scrapeOther = plainCommands(before);

            assertThat(all).hasSize(500);
            for (JsonNode q : all) {
                int i = Integer.parseInt(q.get("name").asText().substring(1));
                assertThat(q.get("workers").asInt()).as(q.get("name").asText()).isEqualTo(i % 3);
                assertThat(q.get("unattended").asBoolean()).as(q.get("name").asText()).isEqualTo(i % 3 == 0);
            }
            assertThat(metrics).contains("delayq_workers{queue=\"q2\"} 2.0", "delayq_workers{queue=\"q50\"} 2.0",
                    "delayq_workers{queue=\"q3\"} 0.0");
            // 490 plain queues (one entry each, workers included) + 10 of 3 partitions and a registry: 530 entries,
            // 3 stats_many calls; and the queue list. Before: one workers.lua call per queue besides (500 more).
            assertThat(refresh).as("script calls for one refresh of 500 queues").isLessThanOrEqualTo(4);
            assertThat(scrape).as("script calls for one scrape of 500 queues").isLessThanOrEqualTo(4);
            assertThat(refreshOther).as("other commands for one refresh of 500 queues").isLessThanOrEqualTo(4);
            assertThat(scrapeOther).as("other commands for one scrape of 500 queues").isLessThanOrEqualTo(4);
            System.out.printf("500 queues: /api/queues %d script calls + %d other commands, /metrics %d + %d%n", refresh,
                    refreshOther, scrape, scrapeOther);
        }
    }
}
