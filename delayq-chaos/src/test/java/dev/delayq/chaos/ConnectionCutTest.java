package dev.delayq.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.delayq.ClaimOptions;
import dev.delayq.DelayQ;
import dev.delayq.JobState;
import dev.delayq.JobQueue;
import dev.delayq.QueueStats;
import dev.delayq.testkit.FaultProxy;
import dev.delayq.testkit.RedisServer;
import dev.delayq.testkit.Resp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Scenario 5 of the fault suite (issue 6), connection cuts: connections killed by the server
 * ({@code CLIENT KILL TYPE normal}) and dropped by a loopback proxy, also in the middle of a reply, while
 * producers enqueue and workers run jobs; then the regression test of the torn-reply defect (a reply cut
 * mid-way used to be decoded into the result of the command Lettuce re-sent). See RELIABILITY.md,
 * "Connections, reconnects and retried commands".
 */
class ConnectionCutTest {
    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration WORK = Duration.ofMillis(4);

    /** Injects one round of faults; returns how many connections it cut. */
    @FunctionalInterface
    private interface Fault {
        long inject() throws Exception;
    }

    @Test
    void clientKillEverySecondLosesNothingAndNeverLeasesAJobTwice() throws Exception {
        int jobs = Chaos.size(2_000, 10_000);
        Duration phase = Chaos.time(Duration.ofSeconds(8), Duration.ofSeconds(30));
        int maxRounds = (int) phase.toSeconds();
        try (RedisServer redis = RedisServer.start(); Resp admin = redis.connect()) {
            // The test's own admin connection survives: SKIPME yes.
            Fault kill = () -> (Long) admin.call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
            workersUnderFaults("5a-connection-cuts-client-kill", redis.uri(), jobs, phase, Duration.ofSeconds(1), maxRounds, kill,
                    () -> { }, Map::of);
        }
    }

    @Test
    void proxyCutsAndTornRepliesLoseNothingAndNeverLeaseAJobTwice() throws Exception {
        int jobs = Chaos.size(2_000, 10_000);
        Duration phase = Chaos.time(Duration.ofSeconds(6), Duration.ofSeconds(30));
        Duration every = Duration.ofMillis(200);
        int maxRounds = (int) (phase.toMillis() / every.toMillis());
        try (RedisServer redis = RedisServer.start();
             FaultProxy proxy = FaultProxy.start(redis.port(), Chaos.SEED, 4 * maxRounds)) {
            // Rounds cycle: drop every connection; tear the next reply; tear the next reply that carries job records.
            int[] round = {0};
            int records = 2 * ChaosProducer.payloadOf("c-0").length();
            Fault fault = () -> switch (round[0]++ % 3) {
                case 0 -> proxy.dropAll();
                case 1 -> {
                    proxy.tearNext(1);
                    yield 0;
                }
                default -> {
                    proxy.tearNext(1, records);
                    yield 0;
                }
            };
            workersUnderFaults("5b-connection-cuts-proxy", proxy.uri(), jobs, phase, every, maxRounds, fault,
                    proxy::heal, () -> Map.of("dropped", proxy.dropped(), "torn", proxy.torn()));
        }
    }

    /**
     * A producer and two workers, each on a client of its own, run {@code jobs} jobs while {@code fault} is injected
     * every {@code every} for {@code phase} (at most {@code maxRounds} rounds); then the faults stop ({@code heal}),
     * the jobs drain, and the checker judges every job.
     */
    private static void workersUnderFaults(String scenario, String uri, int jobs, Duration phase, Duration every,
                                           int maxRounds, Fault fault, Runnable heal,
                                           Supplier<Map<String, Long>> faultFigures) throws Exception {
        Checker checker = new Checker(scenario);
        long started = System.nanoTime();
        try (DelayQ producerClient = client(uri, "producer");
             DelayQ workerClient1 = client(uri, "worker-1");
             DelayQ workerClient2 = client(uri, "worker-2");
             DelayQ checkClient = client(uri, "check")) {
            String queue = "cuts";
            JobQueue q = checkClient.queue(queue); // opened before the faults (opening reads the queue's configuration)
            ChaosProducer producer = new ChaosProducer(producerClient.queue(queue), checker, "c", jobs, phase,
                    Duration.ofMillis(500), Chaos.SEED, Duration.ofSeconds(60));
            long rounds = 0;
            long cut = 0;
            ChaosWorkers workers = new ChaosWorkers(List.of(workerClient1.queue(queue), workerClient2.queue(queue)), checker,
                    LEASE, WORK, Chaos.SEED);
            try {
                producer.start();
                long end = System.nanoTime() + phase.toNanos();
                while (System.nanoTime() < end && rounds < maxRounds) {
                    Thread.sleep(every.toMillis()); // the pace of the faults
                    cut += fault.inject();
                    rounds++;
                }
                heal.run();
                assertThat(producer.join(Duration.ofSeconds(60))).as("producer finished").isTrue();
                // Drain: jobs leased in lost claim replies come back once their lease expires.
                await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
                        .until(() -> q.inspector().stats().done() == jobs);
            } finally {
                producer.stop();
                workers.close();
            }
            QueueStats stats = q.inspector().stats();
            Checker.Verdict verdict = checker.check(q, JobState.DONE);
            Map<String, Object> extra = new LinkedHashMap<>();
            extra.put("jobs", jobs);
            extra.put("faults", rounds);
            extra.put("connections_cut", cut);
            extra.putAll(faultFigures.get());
            extra.put("errors", producer.errorCount() + workers.redisErrorCount());
            extra.put("producer_errors", producer.errors().toString().replace(" ", ""));
            extra.put("worker_errors", workers.redisErrors().toString().replace(" ", ""));
            extra.put("retried_duplicates", producer.duplicatesAfterError());
            extra.put("recovered", stats.total("recovered"));
            extra.put("seconds", (System.nanoTime() - started) / 1_000_000_000L);
            verdict.line(extra);
            verdict.assertClean();
            assertThat(producer.wrongAnswers()).as("enqueue answers that do not fit what was sent").isEmpty();
            assertThat(rounds).as("fault rounds").isPositive();
            // Every kind of fault injected had an effect: connections cut, and (proxy) dropped and replies torn.
            assertThat(cut).as("connections cut: " + extra).isPositive();
            faultFigures.get().forEach((what, n) -> assertThat(n).as(what + ": " + extra).isPositive());
            assertThat(stats.total("enqueued")).as("each id created exactly once").isEqualTo(jobs);
            assertThat(stats.done()).isEqualTo(jobs);
            assertThat(stats.dead()).isZero();
        }
    }

    private static DelayQ client(String uri, String name) {
        return DelayQ.builder().redis(uri).prefix("cuts").clientName(name).timeout(Duration.ofSeconds(2))
                .retryPolicy(Rig.FAST).build();
    }

    @Test
    void tornRepliesAreNeverDecodedIntoAnotherCommandsResult() throws Exception {
        int jobs = Chaos.size(1_500, 6_000);
        int maxTears = Chaos.size(150, 600);
        Duration faultPhase = Chaos.time(Duration.ofSeconds(8), Duration.ofSeconds(30));
        Duration lease = Duration.ofSeconds(3);
        Checker checker = new Checker("5c-torn-replies");
        try (RedisServer redis = RedisServer.start();
             FaultProxy proxy = FaultProxy.start(redis.port(), Chaos.SEED, maxTears);
             DelayQ dq = DelayQ.builder().redis(proxy.uri()).prefix("torn").timeout(Duration.ofSeconds(2))
                     .retryPolicy(Rig.FAST).build()) {
            JobQueue q = dq.queue("torn");
            List<ChaosProducer> producers = List.of(
                    new ChaosProducer(q, checker, "t-a", jobs / 2, faultPhase, Duration.ZERO, Chaos.SEED, Duration.ofSeconds(60)),
                    new ChaosProducer(q, checker, "t-b", jobs - jobs / 2, faultPhase, Duration.ZERO, Chaos.SEED + 1,
                            Duration.ofSeconds(60)));
            ClaimOptions claim = ClaimOptions.of(10, lease).withRetryPolicy(Rig.FAST);
            List<CheckedClaimer> claimers = List.of(new CheckedClaimer("1", q, checker, claim, "t-"),
                    new CheckedClaimer("2", q, checker, claim, "t-"));
            long started = System.nanoTime();
            try {
                producers.forEach(ChaosProducer::start);
                claimers.forEach(CheckedClaimer::start);
                // Fault phase: one tear armed at a time, every 30 ms, bounded in count and time; every other one
                // only for a chunk of more than one job record (a claim's reply), the rest for any reply.
                long end = System.nanoTime() + faultPhase.toNanos();
                while (System.nanoTime() < end && proxy.torn() < maxTears) {
                    if (proxy.tearsPending() == 0) {
                        proxy.tearNext(1, proxy.torn() % 2 == 0 ? 2 * ChaosProducer.payloadOf("t-a-0").length() : 2);
                    }
                    Thread.sleep(30); // the pace of the faults
                }
                proxy.heal();
                for (ChaosProducer p : producers) {
                    assertThat(p.join(Duration.ofSeconds(60))).as("producer finished").isTrue();
                }
                // Drain: jobs leased in lost claim replies come back once their lease expires.
                await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
                        .until(() -> q.inspector().stats().done() == checker.ackedCount());
            } finally {
                for (CheckedClaimer c : claimers) {
                    c.stop();
                }
                producers.forEach(ChaosProducer::stop);
            }
            List<String> wrong = new ArrayList<>();
            long producerErrors = 0;
            for (ChaosProducer p : producers) {
                wrong.addAll(p.wrongAnswers());
                producerErrors += p.errorCount();
            }
            long claimerErrors = 0;
            long checked = 0;
            long late = 0;
            for (CheckedClaimer c : claimers) {
                wrong.addAll(c.wrongAnswers());
                claimerErrors += c.errorCount();
                checked += c.jobsChecked();
                late += c.lateChecks();
            }
            QueueStats stats = q.inspector().stats();
            Checker.Verdict verdict = checker.check(q, JobState.DONE);
            Map<String, Object> extra = new LinkedHashMap<>();
            extra.put("jobs", jobs);
            extra.put("faults", proxy.torn());
            extra.put("reconnects", proxy.accepted() - 1);
            extra.put("errors", producerErrors + claimerErrors);
            extra.put("claimed_checked", checked);
            extra.put("checked_after_lease", late);
            extra.put("misdecoded", wrong.size());
            extra.put("error_kinds", errorKinds(producers, claimers));
            extra.put("seconds", (System.nanoTime() - started) / 1_000_000_000L);
            verdict.line(extra);
            verdict.assertClean();
            assertThat(wrong).as("answers that do not fit what was sent or what Redis holds").isEmpty();
            assertThat(proxy.torn()).as("replies torn").isPositive();
            assertThat(stats.total("enqueued")).as("each id created exactly once").isEqualTo(jobs);
            assertThat(stats.done()).isEqualTo(jobs);
        }
    }

    private static String errorKinds(List<ChaosProducer> producers, List<CheckedClaimer> claimers) {
        Map<String, Long> all = new java.util.TreeMap<>();
        producers.forEach(p -> p.errors().forEach((k, v) -> all.merge("enqueue:" + k, v, Long::sum)));
        claimers.forEach(c -> c.errors().forEach((k, v) -> all.merge(k, v, Long::sum)));
        return all.toString().replace(" ", "");
    }
}
