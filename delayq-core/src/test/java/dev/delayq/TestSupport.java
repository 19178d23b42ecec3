package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.awaitility.Awaitility;

/** Helpers shared by the tests: clients that are checked and closed after each test, Redis time. */
final class TestSupport implements AutoCloseable {
    private final Target target;
    private final String prefix;
    private final List<DelayQ> clients = new ArrayList<>();
    private final List<JobQueue> queues = new ArrayList<>();

    TestSupport(Target target, String prefix) {
        this.target = target;
        this.prefix = prefix;
    }

    /** A client on the test's server and prefix; {@code config} may change the defaults. */
    DelayQ client(Consumer<DelayQ.Builder> config) {
        DelayQ.Builder b = DelayQ.builder().redis(target.uri()).cluster(target.cluster()).prefix(prefix)
                .timeout(Duration.ofSeconds(10));
        config.accept(b);
        DelayQ dq = b.build();
        synchronized (clients) {
            clients.add(dq);
        }
        return dq;
    }

    DelayQ client() {
        return client(b -> { });
    }

    /** A queue whose consistency is checked when the test ends. */
    JobQueue queue(DelayQ dq, String name) {
        return queue(dq, name, 0);
    }

    /** A queue with {@code partitions} partitions (0: as recorded) whose consistency is checked when the test ends. */
    JobQueue queue(DelayQ dq, String name, int partitions) {
        JobQueue q = dq.queue(name, partitions);
        synchronized (queues) {
            queues.add(q);
        }
        return q;
    }

    /** Redis's clock, in epoch ms. */
    long redisNow() {
        return target.nowMillis();
    }

    /** Waits (with a deadline) until Redis's clock has passed {@code epochMillis}. */
    void awaitRedisTime(long epochMillis) {
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5))
                .until(() -> redisNow() > epochMillis);
    }

    Target target() {
        return target;
    }

    String prefix() {
        return prefix;
    }

    /**
     * Asserts every queue used by the test is consistent and that every key under the test's prefix carries
     * a queue's hash tag (so every script stayed in one cluster slot), then closes every client.
     */
    @Override
    public void close() {
        try {
            for (JobQueue q : queues) {
                CheckReport report = q.inspector().check();
                assertThat(report.problems()).as("consistency of queue %s after the test", q.name()).isEmpty();
            }
            if (!clients.isEmpty()) {
                String p = java.util.regex.Pattern.quote(prefix);
                assertThat(clients.get(0).backend().keys(prefix + ":*"))
                        .as("keys under prefix %s", prefix)
                        .allMatch(k -> k.matches(p + ":queues") || k.matches(p + ":\\{[A-Za-z0-9._:-]+(#\\d+)?\\}:.+"));
            }
        } finally {
            clients.forEach(DelayQ::close);
        }
    }

    /** Whether {@code q} has more than one partition. */
    static boolean partitioned(JobQueue q) {
        return dev.delayq.internal.queue.RedisQueue.of(q).partitions().size() > 1;
    }

    /** The partition of {@code q} that holds a job id, dedupe key or schedule name (0 without partitions). */
    static int partitionOf(JobQueue q, String key) {
        return dev.delayq.internal.queue.RedisQueue.of(q).partitionOf(key);
    }

    /** Each partition of {@code q} alone, as a queue of its own ({@code q} itself without partitions). */
    static List<JobQueue> partitionViews(JobQueue q) {
        dev.delayq.internal.queue.RedisQueue e = dev.delayq.internal.queue.RedisQueue.of(q);
        List<JobQueue> views = new java.util.ArrayList<>();
        for (int p = 0; p < e.partitions().size(); p++) {
            views.add(e.partitions().size() == 1 ? q : e.partition(p));
        }
        return views;
    }

    /** The tick times of the jobs of schedule {@code name} in {@code q}, whatever their state, in order. */
    static List<Long> ticks(JobQueue q, String name) {
        return java.util.stream.Stream.of(JobState.values()).flatMap(q.inspector()::stream).map(JobInfo::id)
                .filter(id -> id.startsWith(name + "@")).map(id -> Long.parseLong(id.substring(name.length() + 1)))
                .sorted().toList();
    }

    /** Counts claims per job id: the race detector shared by the race tests. */
    static final class ClaimLedger {
        private final Map<String, AtomicInteger> claims = new ConcurrentHashMap<>();

        void record(String id) {
            claims.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
        }

        int distinct() {
            return claims.size();
        }

        /** Ids claimed more than once. */
        List<String> duplicates() {
            List<String> d = new ArrayList<>();
            claims.forEach((id, n) -> {
                if (n.get() > 1) {
                    d.add(id);
                }
            });
            return d;
        }
    }
}
