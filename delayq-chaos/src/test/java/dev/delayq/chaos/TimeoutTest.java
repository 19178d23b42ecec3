package dev.delayq.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.delayq.DelayQ;
import dev.delayq.DelayQTimeoutException;
import dev.delayq.EnqueueResult;
import dev.delayq.Job;
import dev.delayq.JobInfo;
import dev.delayq.JobState;
import dev.delayq.JobQueue;
import dev.delayq.QueueStats;
import dev.delayq.testkit.FaultProxy;
import dev.delayq.testkit.RedisServer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Scenario 6 of the fault suite (issue 6), timeouts: replies delayed beyond the client's command timeout by a
 * loopback proxy. A command that times out has usually run (only its reply is late): a claim then leases jobs
 * nobody receives (they come back after their lease), a complete is retried and finds its own work, and an
 * enqueue retried with the same id finds its job instead of creating a second one.
 */
class TimeoutTest {
    private static final Duration TIMEOUT = Duration.ofMillis(250);
    /** Beyond the timeout: every reply sent while it is on arrives too late. */
    private static final Duration LATENCY = Duration.ofMillis(400);

    @Test
    void latencyBeyondTheTimeoutOnClaimsAndCompletesLosesNothing() throws Exception {
        int jobs = Chaos.size(500, 2_000);
        Duration phase = Chaos.time(Duration.ofSeconds(8), Duration.ofSeconds(30));
        Duration on = Duration.ofMillis(600);
        Duration off = Duration.ofMillis(600);
        int maxRounds = (int) (phase.toMillis() / (on.toMillis() + off.toMillis()));
        Checker checker = new Checker("6-timeouts");
        long started = System.nanoTime();
        try (RedisServer redis = RedisServer.start();
             FaultProxy proxy = FaultProxy.start(redis.port(), Chaos.SEED, 0);
             DelayQ producerClient = slowClient(proxy, "producer");
             DelayQ workerClient1 = slowClient(proxy, "worker-1");
             DelayQ workerClient2 = slowClient(proxy, "worker-2");
             // The checker reads Redis directly: only the clients under test see the latency.
             DelayQ checkClient = DelayQ.builder().redis(redis.uri()).prefix("slow").clientName("check").build()) {
            String queue = "slow";
            JobQueue q = checkClient.queue(queue);
            ChaosProducer producer = new ChaosProducer(producerClient.queue(queue), checker, "s", jobs, phase,
                    Duration.ofMillis(300), Chaos.SEED, Duration.ofSeconds(60));
            ChaosWorkers workers = new ChaosWorkers(List.of(workerClient1.queue(queue), workerClient2.queue(queue)), checker,
                    Duration.ofSeconds(2), Duration.ofMillis(4), Chaos.SEED);
            int rounds = 0;
            try {
                producer.start();
                long end = System.nanoTime() + phase.toNanos();
                while (System.nanoTime() < end && rounds < maxRounds) {
                    proxy.latency(LATENCY);
                    Thread.sleep(on.toMillis()); // the fault's duration
                    proxy.latency(Duration.ZERO);
                    Thread.sleep(off.toMillis()); // the pace of the faults
                    rounds++;
                }
                proxy.heal();
                assertThat(producer.join(Duration.ofSeconds(60))).as("producer finished").isTrue();
                // Drain: jobs leased by claims whose reply came too late come back once their lease expires.
                await().atMost(Duration.ofSeconds(60)).until(() -> q.inspector().stats().done() == jobs);
            } finally {
                producer.stop();
                workers.close();
            }
            QueueStats stats = q.inspector().stats();
            Checker.Verdict verdict = checker.check(q, JobState.DONE);
            Map<String, Object> extra = new LinkedHashMap<>();
            extra.put("jobs", jobs);
            extra.put("faults", rounds);
            extra.put("latency_ms", LATENCY.toMillis());
            extra.put("timeout_ms", TIMEOUT.toMillis());
            extra.put("errors", producer.errorCount() + workers.redisErrorCount());
            extra.put("producer_errors", producer.errors().toString().replace(" ", ""));
            extra.put("worker_errors", workers.redisErrors().toString().replace(" ", ""));
            extra.put("retried_duplicates", producer.duplicatesAfterError());
            extra.put("claimed", stats.total("claimed"));
            extra.put("recovered", stats.total("recovered"));
            extra.put("seconds", (System.nanoTime() - started) / 1_000_000_000L);
            verdict.line(extra);
            verdict.assertClean();
            assertThat(producer.wrongAnswers()).as("enqueue answers that do not fit what was sent").isEmpty();
            assertThat(producer.errors()).as("enqueues timed out").containsKey("DelayQTimeoutException");
            assertThat(workers.redisErrors()).as("worker calls timed out").containsKeys("claim", "complete");
            // Timed-out enqueues had run (only the reply was late): their retries found the job, created none.
            assertThat(producer.duplicatesAfterError()).as("retries that found the job of a timed-out enqueue").isPositive();
            assertThat(stats.total("enqueued")).as("each id created exactly once").isEqualTo(jobs);
            assertThat(stats.done()).isEqualTo(jobs);
            assertThat(stats.dead()).isZero();
        }
    }

    @Test
    void anEnqueueRetriedAfterATimeoutWithTheSameIdCreatesExactlyOneJob() {
        int tries = Chaos.size(10, 40);
        try (RedisServer redis = RedisServer.start();
             FaultProxy proxy = FaultProxy.start(redis.port(), Chaos.SEED, 0);
             DelayQ slow = slowClient(proxy, "producer");
             DelayQ direct = DelayQ.builder().redis(redis.uri()).prefix("slow").clientName("check").build()) {
            JobQueue q = slow.queue("once");
            JobQueue check = direct.queue("once");
            int duplicates = 0;
            for (int i = 0; i < tries; i++) {
                String id = "retry-" + i;
                Job job = Job.builder().id(id).payload(ChaosProducer.payloadOf(id)).delay(Duration.ofHours(1)).build();
                proxy.latency(LATENCY);
                assertThatThrownBy(() -> q.enqueue(job)).isInstanceOf(DelayQTimeoutException.class);
                proxy.latency(Duration.ZERO);
                // The retry answers created or duplicate, always naming the id that was sent.
                EnqueueResult retry = await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
                        .until(() -> q.enqueue(job), r -> true);
                assertThat(retry.id()).isEqualTo(id);
                duplicates += retry.duplicate() ? 1 : 0;
                JobInfo info = check.get(id).orElseThrow();
                assertThat(info.state()).isEqualTo(JobState.SCHEDULED);
                assertThat(info.payloadUtf8()).isEqualTo(ChaosProducer.payloadOf(id));
            }
            QueueStats stats = check.inspector().stats();
            Chaos.record("6-timeouts-enqueue-retry tries=" + tries + " faults=" + tries + " retried_duplicates=" + duplicates
                    + " enqueued=" + stats.total("enqueued") + " scheduled=" + stats.scheduled());
            assertThat(stats.total("enqueued")).as("one job per id, however often it was sent").isEqualTo(tries);
            assertThat(stats.scheduled()).isEqualTo(tries);
            assertThat(check.inspector().check().problems()).isEmpty();
        }
    }

    private static DelayQ slowClient(FaultProxy proxy, String name) {
        return DelayQ.builder().redis(proxy.uri()).prefix("slow").clientName(name).timeout(TIMEOUT)
                .retryPolicy(Rig.FAST).build();
    }
}
