package dev.delayq.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.delayq.DelayQ;
import dev.delayq.DelayQConfigurationException;
import dev.delayq.DelayQConnectionException;
import dev.delayq.DelayQException;
import dev.delayq.DelayQTimeoutException;
import dev.delayq.Job;
import dev.delayq.JobState;
import dev.delayq.JobQueue;
import dev.delayq.QueueStats;
import dev.delayq.Worker;
import dev.delayq.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Scenario 10 of the fault suite: a Redis with a tiny {@code maxmemory} and {@code noeviction}. Producers
 * enqueue until Redis is full: every refused enqueue must surface as an error (never a silent "created" or
 * "duplicate"), and must write nothing (no half-written job, no half of a batch). A full queue must still
 * drain: workers claim, fail and complete, completing frees memory (done retention 0), and then enqueues
 * succeed again. A server whose {@code maxmemory-policy} evicts keys is refused at start, with an error naming
 * the setting, unless explicitly allowed.
 */
class MemoryPressureTest {
    private static final String QUEUE = "mem";
    private static final List<String> EVICTING = List.of("allkeys-lru", "allkeys-lfu", "allkeys-random",
            "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl");

    @Test
    void aFullRedisRefusesEnqueuesCleanlyAndStillDrains() throws Exception {
        long testStart = System.nanoTime();
        int budgetBytes = Chaos.size(2, 8) * 1024 * 1024;
        int payloadBytes = 2048;
        int producers = 4;
        // Bounded fault phase: at most this many enqueue attempts (about three times what fits).
        int maxAttempts = 3 * budgetBytes / payloadBytes;
        Random random = new Random(Chaos.SEED);

        try (RedisServer server = RedisServer.builder().config("appendonly", "yes").start()) {
            int refusedPolicies = assertEvictingPoliciesAreRefused(server);

            Checker checker = new Checker("10-memory-pressure").deletedOnCompletion();
            try (DelayQ dq = client(server, Duration.ofHours(1));
                 DelayQ workers = client(server, Duration.ZERO)) { // completing deletes: it frees memory
                JobQueue q = dq.queue(QUEUE);
                q.enqueue(job("warm-up", 1, 16)); // the queue's keys exist before the limit is set
                checker.acked("warm-up");
                long used = Long.parseLong(server.info("memory").get("used_memory"));
                server.call("CONFIG", "SET", "maxmemory", String.valueOf(used + budgetBytes));
                server.call("CONFIG", "SET", "maxmemory-policy", "noeviction");

                // Fill: every producer stops after a run of refusals in a row (Redis is full) or the bound.
                AtomicInteger next = new AtomicInteger();
                AtomicLong refused = new AtomicLong();
                Set<String> refusedIds = ConcurrentHashMap.newKeySet();
                ConcurrentLinkedQueue<String> unclear = new ConcurrentLinkedQueue<>();
                ExecutorService pool = Executors.newFixedThreadPool(producers);
                List<Future<?>> running = new ArrayList<>();
                for (int p = 0; p < producers; p++) {
                    running.add(pool.submit(() -> {
                        int inARow = 0;
                        for (int n = next.getAndIncrement(); n < maxAttempts && inARow < 20; n = next.getAndIncrement()) {
                            String id = "mem-" + n;
                            try {
                                assertThat(q.enqueue(job(id, n, payloadBytes)).created()).as("enqueue of a new id").isTrue();
                                checker.acked(id);
                                inARow = 0;
                            } catch (DelayQException e) {
                                checker.uncertain(id);
                                refused.incrementAndGet();
                                refusedIds.add(id);
                                inARow++;
                                if (!isOom(e)) {
                                    unclear.add(e.toString());
                                }
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : running) {
                    f.get(120, TimeUnit.SECONDS);
                }
                pool.shutdown();
                int accepted = checker.ackedCount();

                // A batch is atomic: refused whole, none of its jobs written.
                List<Job> batch = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    batch.add(job("mem-batch-" + i, i, payloadBytes));
                }
                assertThatThrownBy(() -> q.enqueueAll(batch)).isInstanceOf(DelayQException.class)
                        .hasMessageContaining("out of memory").hasMessageContaining("nothing was written");
                refused.incrementAndGet();
                for (Job j : batch) {
                    refusedIds.add(j.id());
                    checker.uncertain(j.id());
                }
                assertThat(refusedIds).as("refused enqueues that wrote a job anyway")
                        .filteredOn(id -> q.get(id).isPresent()).isEmpty();
                assertThat(q.inspector().check().problems()).as("check while full").isEmpty();
                long fullAt = Long.parseLong(server.info("memory").get("used_memory"));

                // Drain while full: one job in ten fails its first attempt (fail writes while full, too).
                List<Worker> started = new ArrayList<>();
                JobQueue wq = workers.queue(QUEUE);
                for (int i = 0; i < 2; i++) {
                    started.add(Rig.worker(wq, checker, "mem-w" + i, 8, ctx -> {
                        if (ctx.payload()[0] == 1 && ctx.attempt() == 1) {
                            throw new IllegalStateException("first attempt of " + ctx.id() + " fails");
                        }
                    }).start());
                }
                try {
                    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                            .until(() -> {
                                QueueStats s = q.inspector().stats();
                                return s.scheduled() == 0 && s.processing() == 0 && checker.completions() >= accepted;
                            });

                    // Memory is free again: enqueues succeed, and are run.
                    int after = Chaos.size(200, 1_000);
                    for (int n = 0; n < after; n++) {
                        String id = "mem-after-" + n;
                        q.enqueue(job(id, random.nextInt(10), payloadBytes));
                        checker.acked(id);
                    }
                    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                            .until(() -> {
                                QueueStats s = q.inspector().stats();
                                return s.scheduled() == 0 && s.processing() == 0
                                        && checker.completions() >= accepted + after;
                            });
                } finally {
                    started.forEach(Worker::close);
                }

                Checker.Verdict verdict = checker.check(q, JobState.DONE);
                long retried = q.inspector().stats().total("retried");
                Map<String, Object> extra = new LinkedHashMap<>();
                extra.put("jobs", accepted);
                extra.put("faults", refused.get()); // enqueues refused: out of memory
                extra.put("errors_unclear", unclear.size());
                extra.put("retried_while_draining", retried);
                extra.put("maxmemory_kb", (used + budgetBytes) / 1024);
                extra.put("used_when_full_kb", fullAt / 1024);
                extra.put("policies_refused", refusedPolicies);
                extra.put("wall_s", String.format("%.1f", (System.nanoTime() - testStart) / 1e9));
                verdict.line(extra);
                verdict.assertClean();
                assertThat(unclear).as("refusals that were not a clear out-of-memory error").isEmpty();
                assertThat(refused.get()).as("enqueues refused when full").isGreaterThan(20);
                assertThat(accepted).as("jobs accepted before full").isGreaterThan(100);
                assertThat(retried).as("failed attempts rescheduled").isPositive();
                assertThat(checker.completions()).isEqualTo(accepted + Chaos.size(200, 1_000));
                assertThat(verdict.refused()).isZero();
            }
        }
    }

    /** One job in ten (payload's first byte 1) fails its first attempt. */
    private static Job job(String id, int n, int payloadBytes) {
        byte[] payload = new byte[payloadBytes];
        payload[0] = (byte) (n % 10 == 0 ? 1 : 0);
        return Job.builder().id(id).payload(payload).build();
    }

    private static boolean isOom(DelayQException e) {
        return !(e instanceof DelayQConnectionException) && !(e instanceof DelayQTimeoutException)
                && e.getMessage().contains("out of memory") && e.getMessage().contains("maxmemory");
    }

    private static DelayQ client(RedisServer server, Duration doneRetention) {
        return DelayQ.builder().redis(server.uri()).timeout(Duration.ofSeconds(5)).retryPolicy(Rig.FAST)
                .doneRetention(doneRetention).build();
    }

    /** Every evicting policy is refused with an error naming it and the way out; the override connects. */
    private static int assertEvictingPoliciesAreRefused(RedisServer server) {
        server.call("CONFIG", "SET", "maxmemory", "100mb");
        int refused = 0;
        for (String policy : EVICTING) {
            server.call("CONFIG", "SET", "maxmemory-policy", policy);
            assertThatThrownBy(() -> DelayQ.connect(server.uri()).close())
                    .isInstanceOf(DelayQConfigurationException.class)
                    .hasMessageContaining("maxmemory-policy " + policy)
                    .hasMessageContaining("noeviction")
                    .hasMessageContaining("allowEvictingMemoryPolicy(true)");
            refused++;
            try (DelayQ dq = DelayQ.builder().redis(server.uri()).allowEvictingMemoryPolicy(true).build()) {
                JobQueue q = dq.queue("evicting-allowed");
                assertThat(q.enqueue(Job.builder().id(policy).build()).created()).isTrue();
                assertThat(q.get(policy)).isPresent();
            }
        }
        server.call("CONFIG", "SET", "maxmemory-policy", "noeviction");
        server.call("FLUSHALL");
        try (DelayQ dq = DelayQ.connect(server.uri())) {
            assertThat(dq.serverVersion()).isNotBlank(); // noeviction is accepted without an override
        }
        server.call("CONFIG", "SET", "maxmemory", "0");
        return refused;
    }
}
