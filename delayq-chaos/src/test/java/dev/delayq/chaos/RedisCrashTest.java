package dev.delayq.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.delayq.DelayQ;
import dev.delayq.DelayQConfigurationException;
import dev.delayq.DelayQException;
import dev.delayq.Durability;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Scenario 3 of the fault suite: redis-server is SIGKILLed every few seconds and restarted while producers
 * enqueue and workers process. With {@code appendonly yes} and {@code appendfsync always} every acknowledged
 * write is on disk before the reply, so nothing acknowledged may be lost. (A process kill leaves the kernel's
 * page cache intact, so it cannot show the {@code everysec} window; that needs a machine crash.)
 *
 * <p>One producer of four enqueues through a client with {@link Durability#replicas} against a replica of the
 * crashing master: its enqueues return only once the replica has them, and while the replica resynchronises
 * after a crash they fail with {@link DelayQDurabilityException}, which the producer treats like any other
 * error (uncertain, retried with the same id).
 */
class RedisCrashTest {
    private static final String QUEUE = "crash";

    @Test
    void sigkilledRedisWithAppendfsyncAlwaysLosesNoAcknowledgedEnqueue() throws Exception {
        int jobs = Chaos.size(2_000, 10_000);
        int maxKills = Chaos.size(3, 6);
        Duration killEvery = Chaos.time(Duration.ofSeconds(3), Duration.ofSeconds(10));
        Duration downtime = Duration.ofMillis(300);
        // Enqueues are spread over the whole fault phase, so every crash lands among them.
        Duration enqueueSpan = killEvery.multipliedBy(2 * maxKills + 1).dividedBy(2);
        Random random = new Random(Chaos.SEED);
        long testStart = System.nanoTime();

        try (RedisServer master = RedisServer.builder().config("appendonly", "yes").config("appendfsync", "always")
                     // The replica resynchronises after every crash: at once, not after the default 5 s.
                     .config("repl-diskless-sync-delay", "0").start();
             RedisServer replica = RedisServer.start()) {
            replica.call("REPLICAOF", "127.0.0.1", String.valueOf(master.port()));
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> "up".equals(replica.info("replication").get("master_link_status")));
            assertDurableAofNeedsRedis72(master);

            Checker checker = new Checker("3-redis-crash");
            AtomicLong errors = new AtomicLong();
            AtomicInteger durableAcked = new AtomicInteger();
            AtomicInteger next = new AtomicInteger();
            List<Worker> workers = new ArrayList<>();
            ExecutorService producers = Executors.newFixedThreadPool(4);
            try (DelayQ dq = client(master, Durability.none());
                 DelayQ durable = client(master, Durability.replicas(1, Duration.ofSeconds(2)))) {
                JobQueue q = dq.queue(QUEUE);
                JobQueue dq2 = durable.queue(QUEUE);
                for (int i = 0; i < 2; i++) {
                    workers.add(Rig.worker(q, checker, "crash-w" + i, 8, job -> { }).start());
                }
                long started = System.nanoTime();
                long producerDeadline = System.nanoTime() + enqueueSpan.toNanos() + Duration.ofSeconds(60).toNanos();
                List<Future<?>> running = new ArrayList<>();
                for (int p = 0; p < 4; p++) {
                    boolean isDurable = p == 3;
                    JobQueue target = isDurable ? dq2 : q;
                    running.add(producers.submit(() -> {
                        for (int n = next.getAndIncrement(); n < jobs; n = next.getAndIncrement()) {
                            // Pace the enqueues evenly over the fault phase.
                            long due = started + enqueueSpan.toNanos() * n / jobs;
                            LockSupport.parkNanos(due - System.nanoTime());
                            Job job = Job.builder().id("crash-" + n).payload("n=" + n)
                                    .delay(Duration.ofMillis((n * 7919L) % 1000)).build();
                            if (Rig.enqueueUntilAcked(target, job, checker, e -> errors.incrementAndGet(), producerDeadline) != null
                                    && isDurable) {
                                durableAcked.incrementAndGet();
                            }
                        }
                        return null;
                    }));
                }

                // Every crash is injected however slow the machine is (the count does not depend on its pace): on a
                // busy machine the last ones may come after the producers finished, while the workers drain.
                int kills = 0;
                while (kills < maxKills) {
                    // Pacing of the fault itself.
                    Thread.sleep(killEvery.toMillis() - 500 + random.nextInt(1000));
                    master.kill();
                    kills++;
                    Thread.sleep(downtime.toMillis());
                    master.restart();
                }
                for (Future<?> f : running) {
                    f.get(enqueueSpan.toSeconds() + 120, TimeUnit.SECONDS);
                }
                double faultSeconds = (System.nanoTime() - started) / 1e9;
                assertThat(checker.ackedCount()).as("every id acknowledged in the end (producers retry)").isEqualTo(jobs);

                await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                        .until(() -> {
                            QueueStats s = q.inspector().stats();
                            return s.done() == jobs && s.scheduled() == 0 && s.processing() == 0;
                        });
                workers.forEach(Worker::close);
                workers.clear();

                Checker.Verdict verdict = checker.check(q, JobState.DONE);
                Map<String, Object> extra = new LinkedHashMap<>();
                extra.put("jobs", jobs);
                extra.put("faults", kills);
                extra.put("errors", errors.get());
                extra.put("durable_acked", durableAcked.get());
                extra.put("fault_s", String.format("%.1f", faultSeconds));
                extra.put("wall_s", String.format("%.1f", (System.nanoTime() - testStart) / 1e9));
                verdict.line(extra);
                verdict.assertClean();
                assertThat(kills).as("crashes injected").isEqualTo(maxKills);
                assertThat(durableAcked.get()).as("enqueues acknowledged by the durable producer").isPositive();
                assertThat(verdict.completions()).as("one accepted completion per job").isEqualTo(jobs);
                assertThat(master.info("persistence").get("aof_enabled")).isEqualTo("1");
            } finally {
                workers.forEach(Worker::close);
                producers.shutdownNow();
            }
        }
    }

    private static DelayQ client(RedisServer server, Durability durability) {
        return DelayQ.builder().redis(server.uri()).prefix("dq").timeout(Duration.ofSeconds(3))
                .retryPolicy(Rig.FAST).durability(durability).build();
    }

    /**
     * {@link Durability#localAof} (WAITAOF) needs Redis 7.2: before that it is refused at start with a message
     * that names the alternative (appendfsync always, as here); from 7.2 on an acknowledged enqueue survives a
     * crash.
     */
    private static void assertDurableAofNeedsRedis72(RedisServer server) {
        String[] v = server.binary().version().split("\\.");
        boolean waitaof = Integer.parseInt(v[0]) > 7 || (Integer.parseInt(v[0]) == 7 && Integer.parseInt(v[1]) >= 2);
        if (!waitaof) {
            assertThatThrownBy(() -> client(server, Durability.localAof(Duration.ofSeconds(1))))
                    .isInstanceOf(DelayQConfigurationException.class)
                    .hasMessageContaining("WAITAOF")
                    .hasMessageContaining("appendfsync always");
            return;
        }
        try (DelayQ dq = client(server, Durability.localAof(Duration.ofSeconds(2)))) {
            JobQueue q = dq.queue("crash-aof");
            assertThat(q.enqueue(Job.builder().id("aof-1").build()).created()).isTrue();
            server.kill();
            server.restart();
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> q.get("aof-1").isPresent());
        } catch (DelayQException e) {
            throw new AssertionError("durable enqueue with WAITAOF failed: " + e.getMessage(), e);
        }
    }
}
