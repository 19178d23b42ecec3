package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.micrometer.MicrometerMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The worker runtime's behaviour; subclasses run it on a single node and (later) a cluster. */
abstract class WorkerContract {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final RetryPolicy QUICK = RetryPolicy.builder().maxAttempts(3).base(Duration.ofMillis(100))
            .cap(Duration.ofMillis(100)).build();

    TestSupport t;
    DelayQ dq;
    JobQueue q;
    final List<Worker> workers = new CopyOnWriteArrayList<>();

    /** Where the test runs. */
    abstract Target target();

    /** A key prefix of this test alone. */
    abstract String prefix();

    /** Partitions of the queues under test (1: a plain queue). */
    int partitions() {
        return 1;
    }

    @BeforeEach
    void open() {
        t = new TestSupport(target(), prefix());
        dq = t.client();
        q = t.queue(dq, "w", partitions());
    }

    @AfterEach
    void closeAll() {
        workers.forEach(Worker::close);
        t.close();
    }

    Worker start(Worker.Builder b) {
        Worker w = b.build();
        workers.add(w);
        return w.start();
    }

    private void awaitDone(long n) {
        Awaitility.await().atMost(WAIT).until(() -> q.inspector().stats().done() >= n);
    }

    @Test
    void fourWorkersOfConcurrencyEightRunTwentyThousandJobsEachOnceNeverAboveTheCap() {
        int jobs = 20_000;
        List<Job> batch = new ArrayList<>(jobs);
        for (int i = 0; i < jobs; i++) {
            batch.add(Job.builder().id("j" + i).build());
        }
        q.enqueueAll(batch);
        TestSupport.ClaimLedger ledger = new TestSupport.ClaimLedger();
        List<AtomicInteger> maxRunning = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            AtomicInteger running = new AtomicInteger();
            AtomicInteger max = new AtomicInteger();
            maxRunning.add(max);
            start(Worker.builder(q, job -> {
                int now = running.incrementAndGet();
                max.accumulateAndGet(now, Math::max);
                ledger.record(job.id());
                running.decrementAndGet();
            }).concurrency(8).name("w" + w));
        }
        awaitDone(jobs);
        assertThat(ledger.distinct()).isEqualTo(jobs);
        assertThat(ledger.duplicates()).isEmpty();
        assertThat(maxRunning).allMatch(m -> m.get() <= 8);
        QueueStats s = q.inspector().stats();
        assertThat(s.scheduled() + s.processing()).isZero();
        assertThat(s.total("claimed")).isEqualTo(jobs);
    }

    @Test
    void slowHandlersNeverExceedTheConcurrencyCap() {
        for (int i = 0; i < 60; i++) {
            q.enqueue(Job.builder().id("s" + i).build());
        }
        AtomicInteger running = new AtomicInteger();
        AtomicInteger max = new AtomicInteger();
        start(Worker.builder(q, job -> {
            max.accumulateAndGet(running.incrementAndGet(), Math::max);
            // Until a second handler runs beside this one (however slow the machine), so the cap is reached for sure.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (max.get() < 2 && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(1);
            }
            TimeUnit.MILLISECONDS.sleep(20);
            running.decrementAndGet();
        }).concurrency(5).batchSize(100));
        awaitDone(60);
        assertThat(max.get()).isBetween(2, 5);
    }

    @Test
    void aBatchOfSlowHandlersRunsAllAtOnceNoJobWaitsBehindAnother() {
        // The handler threads run a burst of fast jobs on few threads; slow ones must still each get a thread at once:
        // every handler here blocks until all 50 are running, so a job queued behind a running one fails the test.
        for (int i = 0; i < 50; i++) {
            q.enqueue(Job.builder().id("b" + i).build());
        }
        CountDownLatch allRunning = new CountDownLatch(50);
        List<String> runs = new CopyOnWriteArrayList<>();
        List<String> outcomes = new CopyOnWriteArrayList<>();
        start(Worker.builder(q, job -> {
            runs.add(job.id() + ":" + job.attempt());
            allRunning.countDown();
            if (!allRunning.await(20, TimeUnit.SECONDS)) {
                throw new IllegalStateException("not all 50 handlers ran at once");
            }
        }).concurrency(50).batchSize(50).listener((job, o) -> outcomes.add(job.id() + ":" + job.attempt() + ":" + o)));
        awaitDone(50);
        // A job queued behind the others would have failed its first run (the latch timed out) and passed on a retry:
        // every job ran once, on its first attempt, and nothing failed.
        List<String> firstRuns = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            firstRuns.add("b" + i + ":1");
        }
        assertThat(runs).containsExactlyInAnyOrderElementsOf(firstRuns);
        for (int i = 0; i < 50; i++) {
            JobInfo info = q.get("b" + i).orElseThrow();
            assertThat(info.state()).as("b" + i).isEqualTo(JobState.DONE);
            assertThat(info.attempt()).as("attempts of b" + i).isEqualTo(1);
            assertThat(info.lastError()).as("error of b" + i).isNull();
        }
        QueueStats s = q.inspector().stats();
        assertThat(s.total("claimed")).isEqualTo(50);
        assertThat(s.total("completed")).isEqualTo(50);
        assertThat(s.total("retried")).isZero();
        assertThat(s.total("recovered")).isZero();
        assertThat(s.dead()).isZero();
        Awaitility.await().atMost(WAIT).until(() -> outcomes.size() == 50);
        assertThat(outcomes).allMatch(o -> o.endsWith(":1:COMPLETED"));
    }

    @Test
    void failingHandlersRetryWithBackoffThenSucceed() {
        q.enqueue(Job.builder().id("flaky").build());
        List<Long> starts = new CopyOnWriteArrayList<>();
        start(Worker.builder(q, job -> {
            starts.add(t.redisNow());
            if (job.attempt() < 3) {
                throw new IllegalStateException("downstream unavailable (attempt " + job.attempt() + ")");
            }
        }).retryPolicy(QUICK));
        awaitDone(1);
        JobInfo info = q.get("flaky").orElseThrow();
        assertThat(info.attempt()).isEqualTo(3);
        assertThat(info.lastError()).startsWith("java.lang.IllegalStateException: downstream unavailable (attempt 2)")
                .contains("\n\tat ");
        assertThat(starts).hasSize(3);
        assertThat(starts.get(1) - starts.get(0)).isGreaterThanOrEqualTo(100);
        assertThat(starts.get(2) - starts.get(1)).isGreaterThanOrEqualTo(100);
        assertThat(q.inspector().stats().total("retried")).isEqualTo(2);
    }

    @Test
    void nonRetryableErrorsGoStraightToDeadAndExhaustedJobsDieToo() {
        q.enqueue(Job.builder().id("poison").build());
        q.enqueue(Job.builder().id("hopeless").maxAttempts(2).build());
        List<String> heard = new CopyOnWriteArrayList<>();
        start(Worker.builder(q, job -> {
            if (job.id().equals("poison")) {
                throw new NonRetryableException("order 42 does not exist");
            }
            throw new RuntimeException("always");
        }).retryPolicy(QUICK).listener((job, o) -> heard.add(job.id() + ":" + job.attempt() + ":" + o)));
        Awaitility.await().atMost(WAIT).until(() -> q.inspector().stats().dead() == 2);
        JobInfo poison = q.get("poison").orElseThrow();
        assertThat(poison.attempt()).isEqualTo(1);
        assertThat(poison.lastError()).startsWith("dev.delayq.NonRetryableException: order 42 does not exist");
        assertThat(q.get("hopeless").orElseThrow().attempt()).isEqualTo(2); // the job's own max beats the policy's 3
        Awaitility.await().atMost(WAIT).until(() -> heard.size() == 3);
        assertThat(heard).containsExactlyInAnyOrder("poison:1:DEAD", "hopeless:1:RETRY_SCHEDULED", "hopeless:2:DEAD");
    }

    @Test
    void aHandlerCanAskForItsRetryDelay() {
        q.enqueue(Job.builder().id("later").build());
        List<JobContext> seen = new CopyOnWriteArrayList<>();
        List<Long> failedAt = new CopyOnWriteArrayList<>();
        start(Worker.builder(q, job -> {
            seen.add(job);
            if (job.attempt() == 1) {
                failedAt.add(t.redisNow());
                throw new RetryLaterException(Duration.ofMillis(700), "rate limited, retry in 700 ms");
            }
        }).retryPolicy(QUICK));
        awaitDone(1);
        assertThat(seen).hasSize(2);
        assertThat(seen.get(1).dueAt().toEpochMilli() - failedAt.get(0)).isGreaterThanOrEqualTo(700);
        assertThat(seen.get(1).lastError()).startsWith("dev.delayq.RetryLaterException: rate limited");
    }

    @Test
    void aJobRunningLongerThanItsLeaseRunsExactlyOnce() {
        q.enqueue(Job.builder().id("long").build());
        AtomicInteger runs = new AtomicInteger();
        List<Boolean> lost = new CopyOnWriteArrayList<>();
        JobHandler slow = job -> {
            runs.incrementAndGet();
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(5000);
            while (System.nanoTime() < end) {
                TimeUnit.MILLISECONDS.sleep(50);
                job.ensureLease();
            }
            lost.add(job.leaseLost());
        };
        // A 5 s job on 2 s leases: kept only by renewals (every ~0.7 s), which a busy machine's pause cannot outlast.
        start(Worker.builder(q, slow).leaseDuration(Duration.ofSeconds(2)).name("a"));
        start(Worker.builder(q, slow).leaseDuration(Duration.ofSeconds(2)).name("b"));
        awaitDone(1);
        assertThat(runs.get()).isEqualTo(1);
        assertThat(lost).containsExactly(false);
        JobInfo info = q.get("long").orElseThrow();
        assertThat(info.attempt()).isEqualTo(1);
        assertThat(info.lastError()).isNull();
    }

    @Test
    void aLostLeaseIsReportedToTheHandlerAndItsCompletionIsRefused() throws InterruptedException {
        q.enqueue(Job.builder().id("victim").build());
        CountDownLatch firstRunSawLoss = new CountDownLatch(1);
        Map<Integer, Boolean> completedNormally = new ConcurrentHashMap<>();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        List<String> outcomes = new CopyOnWriteArrayList<>();
        start(Worker.builder(q, job -> {
            if (job.stalls() == 0) {
                Awaitility.await().atMost(WAIT).until(job::leaseLost);
                firstRunSawLoss.countDown();
            }
            completedNormally.put(job.stalls(), true); // returns normally: asks to complete
        }).concurrency(2).leaseDuration(Duration.ofSeconds(5)).retryPolicy(QUICK).metrics(new MicrometerMetrics(registry))
                .listener((job, outcome) -> outcomes.add(job.stalls() + ":" + outcome)));

        Awaitility.await().atMost(WAIT).until(() -> q.get("victim").orElseThrow().state() == JobState.PROCESSING);
        // Another party takes the job away: its lease is made to look expired and is recovered. (The lease is long
        // enough that a busy machine's pause cannot expire it by itself; a renewal landing between the two calls puts
        // the expiry back, so the pair is tried again until the recovery took the job.)
        String tag = TestSupport.partitioned(q) ? "w#" + TestSupport.partitionOf(q, "victim") : "w";
        Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(1)).until(() -> {
            if (q.get("victim").orElseThrow().stalls() == 0) {
                t.target().call("ZADD", t.prefix() + ":{" + tag + "}:leases", "1", "victim");
                q.leases().recover(10, QUICK);
            }
            return q.get("victim").orElseThrow().stalls() == 1;
        });

        awaitDone(1);
        // The first run learns of the loss at its next renewal, which may come after the second run has finished.
        assertThat(firstRunSawLoss.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        Awaitility.await().atMost(WAIT).until(() -> completedNormally.size() == 2);
        assertThat(completedNormally).containsOnlyKeys(0, 1);
        JobInfo info = q.get("victim").orElseThrow();
        assertThat(info.attempt()).as("the stalled run is not counted as an attempt").isEqualTo(1);
        assertThat(info.stalls()).isEqualTo(1);
        assertThat(q.inspector().stats().total("completed")).isEqualTo(1); // the first run's completion was refused
        Awaitility.await().atMost(WAIT).until(() -> registry.get("delayq.leases.lost").tags("queue", "w").counter().count() >= 1);
        Awaitility.await().atMost(WAIT).until(() -> outcomes.size() == 2);
        assertThat(outcomes).containsExactlyInAnyOrder("0:REFUSED", "1:COMPLETED");
    }

    @Test
    void anEarlierJobWakesASleepingWorkerAtOnce() {
        // The worker's idle sleep is an hour and the only job it knows of is due in an hour: nothing but the notice that
        // the enqueue of an earlier job publishes can make it claim within the deadline, 30 s, well under that hour.
        String soon = idBeside("in-an-hour", "soon");
        q.enqueue(Job.builder().id("in-an-hour").delay(Duration.ofHours(1)).build());
        List<String> started = new CopyOnWriteArrayList<>();
        List<Long> earlyBy = new CopyOnWriteArrayList<>();
        start(Worker.builder(q, job -> {
            earlyBy.add(job.dueAt().toEpochMilli() - t.redisNow());
            started.add(job.id());
        }).maxIdleSleep(Duration.ofHours(1)).name("sleeper"));
        // It has claimed from the partition of both jobs and learned that its head is an hour away: it promised to claim
        // then (the claim script names it the partition's waker for that time), and sleeps toward it.
        String meta = key("in-an-hour", "meta");
        Awaitility.await().atMost(WAIT).until(() -> "sleeper".equals(t.target().call("HGET", meta, "waker")));
        q.enqueue(Job.builder().id(soon).delay(Duration.ofMillis(50)).build());
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> !started.isEmpty());
        assertThat(started).containsExactly(soon);
        assertThat(earlyBy.get(0)).as("ms started before its due time").isLessThanOrEqualTo(0);
        Awaitility.await().atMost(WAIT).until(() -> q.get(soon).orElseThrow().state() == JobState.DONE);
        assertThat(q.get("in-an-hour").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
    }

    @Test
    void aConcurrencyLimitHoldsAtEveryClaimOfEveryWorkerByTheLeasesRedisRecorded() {
        // Six leases at most, by three workers of five slots each: on a queue of three partitions, two per partition.
        int limit = 6;
        q.inspector().limits(Limits.ofConcurrency(limit));
        q.inspector().events(true);
        int n = 60;
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            jobs.add(Job.builder().id("c" + i).build());
        }
        q.enqueueAll(jobs);
        for (int w = 0; w < 3; w++) {
            start(Worker.builder(q, job -> TimeUnit.MILLISECONDS.sleep(5)).concurrency(5).name("limited-" + w));
        }
        awaitDone(n);
        // Each partition's event stream is the order in which its scripts ran: a lease handed out by a claim ("started"),
        // a lease given up by a completion (nothing here fails, retries, stalls or is handed back). Replayed, it gives
        // the leases held after every claim, whichever worker made it.
        int mostOverall = 0;
        List<String> leased = new ArrayList<>();
        for (int p = 0; p < parts().size(); p++) {
            JobQueue part = parts().get(p);
            int share = part.inspector().limits().concurrency();
            int held = 0;
            int most = 0;
            for (JobEvent e : part.inspector().events().read("0", 10_000)) {
                switch (e.type()) {
                    case "started" -> {
                        held++;
                        leased.add(e.jobId());
                        assertThat(held).as("leases held in partition %d once %s was leased (event %s)", p, e.jobId(),
                                e.eventId()).isLessThanOrEqualTo(share);
                    }
                    case "completed" -> held--;
                    case "enqueued" -> { }
                    default -> throw new AssertionError("unexpected event " + e);
                }
                most = Math.max(most, held);
            }
            assertThat(held).as("leases left in partition %d", p).isZero();
            mostOverall += most;
        }
        assertThat(leased).as("each job leased once").hasSize(n).doesNotHaveDuplicates();
        // The partitions' shares add up to the limit, so neither can the leases of the whole queue at any moment.
        assertThat(mostOverall).as("the most leases each partition held, added up").isLessThanOrEqualTo(limit);
    }

    @Test
    void aCompletionThatFreesALeaseWakesAWorkerTheConcurrencyLimitRefused() {
        // One lease per partition. In the partition of "blocked", it is held by hand for ten minutes; a second lease there,
        // taken before the limit was set, has expired.
        JobQueue part = partOf("blocked");
        String holder = idBeside("blocked", "holder");
        String expired = idBeside("blocked", "expired");
        q.enqueue(Job.builder().id(holder).build());
        ClaimedJob held = part.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(10))).jobs().get(0);
        assertThat(held.id()).isEqualTo(holder);
        q.enqueue(Job.builder().id(expired).build());
        ClaimedJob lapsed = part.leases().claim(ClaimOptions.of(1, Duration.ofMillis(200))).jobs().get(0);
        assertThat(lapsed.id()).isEqualTo(expired);
        q.inspector().limits(Limits.ofConcurrency(partitions()));
        assertThat(part.inspector().limits().concurrency()).isEqualTo(1);
        q.enqueue(Job.builder().id("blocked").build());
        t.awaitRedisTime(lapsed.leaseUntilMillis());
        List<String> started = new CopyOnWriteArrayList<>();
        start(Worker.builder(q, job -> started.add(job.id())).maxIdleSleep(Duration.ofHours(1)).name("refused"));
        // The worker's first claim from that partition recovers the expired lease (so it has claimed: nobody else does),
        // then finds the one lease the limit allows held: refused, it sleeps an hour, or until the held lease expires
        // in ten minutes, unless a notice wakes it.
        Awaitility.await().atMost(WAIT).until(() -> q.inspector().stats().total("recovered") == 1);
        assertThat(started).isEmpty();
        assertThat(q.get("blocked").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
        assertThat(part.leases().complete(held.lease())).isEqualTo(Ack.OK);
        // Only the notice of the completion that freed a lease can start it within 30 s.
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> started.contains("blocked"));
    }

    @Test
    void underARateLimitNoWindowHoldsMoreStartsThanTheLimitCountingEachGrantFromWhenItsJobMayStart() {
        // Six starts a second (two in each of three partitions). Group A, as many jobs as the limit, falls due at d; group
        // B, as many again, half a window later. Workers lease a second ahead: they lease A before d, and once A's grants
        // leave the window, B. Were A's grants counted from the claim that leased them ahead, the window would free a
        // second after that claim, before d + 1 s, and B would start within a second of A.
        int limit = 6;
        long window = 1000;
        q.inspector().limits(Limits.rate(limit, Duration.ofMillis(window)));
        q.inspector().events(true);
        long d = t.redisNow() + 3000;
        List<Job> jobs = new ArrayList<>();
        for (String id : idsPerPartition("a", limit / partitions())) {
            jobs.add(Job.builder().id(id).runAt(java.time.Instant.ofEpochMilli(d)).build());
        }
        for (String id : idsPerPartition("b", limit / partitions())) {
            jobs.add(Job.builder().id(id).runAt(java.time.Instant.ofEpochMilli(d + window / 2)).build());
        }
        q.enqueueAll(jobs);
        Map<String, Long> dueOf = new ConcurrentHashMap<>();
        for (int w = 0; w < 2; w++) {
            start(Worker.builder(q, job -> dueOf.put(job.id(), job.dueAt().toEpochMilli())).concurrency(10)
                    .lookahead(Duration.ofSeconds(1)).name("rated-" + w));
        }
        awaitDone(jobs.size());
        // A grant's start, on Redis's clock: the claim's time (its "started" event) or the job's due time if later (a job
        // leased ahead starts at its due time).
        List<Long> starts = new ArrayList<>();
        for (JobQueue part : parts()) {
            for (JobEvent e : part.inspector().events().read("0", 10_000)) {
                if (e.type().equals("started")) {
                    starts.add(Math.max(Long.parseLong(e.fields().get("at")), dueOf.get(e.jobId())));
                }
            }
        }
        assertThat(starts).hasSize(jobs.size());
        for (long end : starts) {
            long inWindow = starts.stream().filter(s -> s > end - window && s <= end).count();
            assertThat(inWindow).as("starts in the window of %d ms ending at %d (d = %d): %s", window, end, d, starts)
                    .isLessThanOrEqualTo(limit);
        }
    }

    @Test
    void idleWorkersCostRedisNothingWhateverTheDueTimeUpToYear9999() {
        // Due times past 2262 do not fit in a long of nanoseconds since 1970: scaled naively they wrap around and
        // read as "already due", and idle workers claim in a loop. One queue per due time, four idle workers each.
        List<java.time.Instant> dues = List.of(java.time.Instant.parse("2100-01-01T00:00:00Z"),
                java.time.Instant.parse("2262-01-01T00:00:00Z"), java.time.Instant.ofEpochMilli(Long.MAX_VALUE / 1_000_000 + 1),
                java.time.Instant.parse("2263-01-01T00:00:00Z"), java.time.Instant.parse("2400-01-01T00:00:00Z"),
                java.time.Instant.parse("5000-01-01T00:00:00Z"), Bounds.MAX_DUE);
        List<JobQueue> queues = new ArrayList<>();
        for (int i = 0; i < dues.size(); i++) {
            JobQueue fq = t.queue(dq, "far" + i, partitions());
            fq.enqueue(Job.builder().id("far").runAt(dues.get(i)).build());
            queues.add(fq);
        }
        long before = evalshaCalls();
        for (JobQueue fq : queues) {
            for (int w = 0; w < 4; w++) {
                // Its heartbeat (a script call every interval: 10 s by default) beats once here, when it starts.
                start(Worker.builder(fq, job -> { }).concurrency(1).name(fq.name() + "-" + w)
                        .heartbeatInterval(Duration.ofMinutes(10)));
            }
        }
        // Each worker claims once from each partition when it starts, learns the head is far away, and sleeps; its
        // schedule ticker reads each partition's (empty) schedules once, then sleeps until a notice or 30 s; its notice
        // relay reads each partition's (empty) outbox once (docs/flows.md), then waits for a notice; and it beats once.
        long initialClaims = (long) queues.size() * 4 * (partitions() * 3 + 1);
        Awaitility.await().atMost(WAIT).until(() -> evalshaCalls() - before >= initialClaims);
        Awaitility.await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(evalshaCalls() - before).as("script calls of the idle workers")
                        .isLessThanOrEqualTo(initialClaims));
        for (JobQueue fq : queues) {
            assertThat(fq.get("far").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
        }
    }

    @Test
    void aListenerThatThrowsNeverStopsAcknowledgements() {
        int n = 50;
        for (int i = 0; i < n; i++) {
            q.enqueue(Job.builder().id("heard" + i).build());
        }
        AtomicInteger heard = new AtomicInteger();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Worker w = start(Worker.builder(q, job -> { }).shutdownGrace(Duration.ofSeconds(60))
                .metrics(new MicrometerMetrics(registry)).listener((job, o) -> {
            heard.incrementAndGet();
            throw new IllegalStateException("listener bug");
        }));
        awaitDone(n);
        Awaitility.await().atMost(WAIT).until(() -> w.inFlight() == 0);
        assertThat(heard.get()).isEqualTo(n);
        assertThat(w.callbackFailures()).isEqualTo(n);
        assertThat(registry.get("delayq.callbacks.failed").tags("queue", "w", "worker", w.name(), "kind", "listener")
                .counter().count()).isEqualTo(n);
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(15), w::close,
                "close() must not wait its 60 s grace for acknowledgements that a throwing listener stalled");
    }

    @Test
    void metricsThatThrowNeverStopTheWorker() {
        int n = 50;
        for (int i = 0; i < n; i++) {
            q.enqueue(Job.builder().id("metered" + i).build());
        }
        q.enqueue(Job.builder().id("poison").build());
        WorkerMetrics broken = (WorkerMetrics) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {WorkerMetrics.class}, (proxy, method, args) -> {
                    if (method.getDeclaringClass() == Object.class) {
                        return method.getName().equals("hashCode") ? 0 : method.getName().equals("equals") ? proxy == args[0] : "broken";
                    }
                    throw new IllegalStateException("metrics bug in " + method.getName());
                });
        Worker w = start(Worker.builder(q, job -> {
            if (job.id().equals("poison")) {
                throw new NonRetryableException("poison");
            }
        }).shutdownGrace(Duration.ofSeconds(60)).metrics(broken));
        awaitDone(n);
        Awaitility.await().atMost(WAIT).until(() -> q.inspector().stats().dead() == 1 && w.inFlight() == 0);
        assertThat(w.callbackFailures()).isGreaterThanOrEqualTo(n + 1); // at least a completion or death per job
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(15), w::close);
    }

    @Test
    void closingTheClientClosesItsWorkersGracefully() throws Exception {
        DelayQ own = DelayQ.builder().redis(t.target().uri()).cluster(t.target().cluster()).prefix(t.prefix()).build();
        JobQueue oq = own.queue("w");
        oq.enqueue(Job.builder().id("quick").build());
        oq.enqueue(Job.builder().id("stuck").build());
        CountDownLatch bothStarted = new CountDownLatch(2);
        List<String> outcomes = new CopyOnWriteArrayList<>();
        Worker w = Worker.builder(oq, job -> {
            bothStarted.countDown();
            if (job.id().equals("stuck")) {
                TimeUnit.HOURS.sleep(1);
            } else {
                bothStarted.await(30, TimeUnit.SECONDS);
            }
        }).concurrency(2).shutdownGrace(Duration.ofMillis(300)).listener((job, o) -> outcomes.add(job.id() + ":" + o))
                .build().start();
        workers.add(w);
        assertThat(bothStarted.await(30, TimeUnit.SECONDS)).isTrue();
        own.close();
        assertThat(w.isRunning()).as("the client closed its worker").isFalse();
        assertThat(outcomes).containsExactlyInAnyOrder("quick:COMPLETED", "stuck:HANDED_BACK");
        assertThat(q.get("quick").orElseThrow().state()).isEqualTo(JobState.DONE);
        JobInfo stuck = q.get("stuck").orElseThrow();
        assertThat(stuck.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(stuck.attempt()).isZero();
        assertThat(q.leases().claim(ClaimOptions.of(10, Duration.ofSeconds(30))).jobs()).hasSize(1)
                .allSatisfy(j -> q.leases().complete(j.lease()));
    }

    @Test
    void twoWorkersOfOneQueueReportTheirOwnFiguresAndAClosedWorkersMetersAreRemoved() {
        int n = 200;
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            jobs.add(Job.builder().id("two" + i).build());
        }
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MicrometerMetrics shared = new MicrometerMetrics(registry, Duration.ZERO); // one sink for both, as in Spring
        Worker.builder(q, job -> { }).name("never-started").metrics(shared).build();
        assertThat(registry.getMeters()).as("meters of a worker built but never started").isEmpty();
        AtomicInteger ranByA = new AtomicInteger();
        AtomicInteger ranByB = new AtomicInteger();
        Worker a = start(Worker.builder(q, job -> ranByA.incrementAndGet()).name("worker-a").concurrency(2).metrics(shared));
        Worker b = start(Worker.builder(q, job -> ranByB.incrementAndGet()).name("worker-b").concurrency(2).metrics(shared));
        q.enqueueAll(jobs);
        awaitDone(n);
        Awaitility.await().atMost(WAIT).until(() -> a.inFlight() == 0 && b.inFlight() == 0);
        Awaitility.await().atMost(WAIT).untilAsserted(() -> {
            assertThat(registry.get("delayq.jobs.completed").tags("queue", "w", "worker", "worker-a").counter().count())
                    .isEqualTo(ranByA.get());
            assertThat(registry.get("delayq.jobs.completed").tags("queue", "w", "worker", "worker-b").counter().count())
                    .isEqualTo(ranByB.get());
        });
        assertThat(ranByA.get() + ranByB.get()).isEqualTo(n);
        assertThat(registry.get("delayq.jobs.claimed").tags("queue", "w", "worker", "worker-a").counter().count())
                .isEqualTo(ranByA.get());
        assertThat(registry.get("delayq.jobs.in_flight").tags("queue", "w", "worker", "worker-b").gauge().value()).isZero();

        a.close();
        assertThat(registry.find("delayq.jobs.completed").tags("worker", "worker-a").meters()).isEmpty();
        assertThat(registry.getMeters()).as("worker-a's meters").noneMatch(m -> "worker-a".equals(m.getId().getTag("worker")));
        assertThat(registry.get("delayq.jobs.completed").tags("queue", "w", "worker", "worker-b").counter().count())
                .isEqualTo(ranByB.get());
        b.close();
        assertThat(registry.getMeters()).as("meters left after both workers closed")
                .noneMatch(m -> m.getId().getName().startsWith("delayq."));
    }

    /** Decimal text as an int: a codec whose decode fails on anything else. */
    private static final PayloadCodec<Integer> DECIMAL = new PayloadCodec<>() {
        @Override
        public byte[] encode(Integer value) {
            return value.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }

        @Override
        public Integer decode(byte[] payload) {
            return Integer.parseInt(new String(payload, java.nio.charset.StandardCharsets.UTF_8));
        }
    };

    @Test
    void oneWorkerRoutesJobsByNameToTheirHandlersAndTheRestToItsDefault() {
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            jobs.add(Job.builder().id("email-" + i).name("email").payload("to" + i + "@example.com").build());
            jobs.add(Job.builder().id("sms-" + i).name("sms").payload(40 + i, DECIMAL).build());
        }
        jobs.add(Job.builder().id("push-0").name("push").build());
        jobs.add(Job.builder().id("plain-0").build());
        q.enqueueAll(jobs);
        Map<String, String> emails = new ConcurrentHashMap<>();
        Map<String, Integer> sms = new ConcurrentHashMap<>();
        List<String> other = new CopyOnWriteArrayList<>();
        start(Worker.builder(q, ctx -> other.add(ctx.id() + ":" + ctx.name()))
                .handle("email", ctx -> emails.put(ctx.id(), ctx.payloadUtf8()))
                .handle("sms", DECIMAL, (ctx, number) -> sms.put(ctx.id(), number)));
        awaitDone(jobs.size());
        assertThat(emails).containsOnlyKeys("email-0", "email-1", "email-2").containsEntry("email-1", "to1@example.com");
        assertThat(sms).containsExactlyInAnyOrderEntriesOf(Map.of("sms-0", 40, "sms-1", 41, "sms-2", 42));
        assertThat(other).containsExactlyInAnyOrder("push-0:push", "plain-0:null");
    }

    @Test
    void aJobWhoseNameHasNoHandlerGoesStraightToDeadSayingWhichNamesAreHandled() {
        q.enqueue(Job.builder().id("fax").name("fax").build());
        q.enqueue(Job.builder().id("nameless").build());
        AtomicInteger ran = new AtomicInteger();
        start(Worker.builder(q).handle("email", ctx -> ran.incrementAndGet())
                .handle("sms", DECIMAL, (ctx, n) -> ran.incrementAndGet()).retryPolicy(QUICK));
        Awaitility.await().atMost(WAIT).until(() -> q.inspector().stats().dead() == 2);
        JobInfo fax = q.get("fax").orElseThrow();
        assertThat(fax.attempt()).isEqualTo(1);
        assertThat(fax.lastError()).isEqualTo("no handler for job name 'fax' (this worker handles: email, sms)");
        JobInfo nameless = q.get("nameless").orElseThrow();
        assertThat(nameless.attempt()).isEqualTo(1);
        assertThat(nameless.lastError()).isEqualTo("no handler for jobs without a name (this worker handles: email, sms)");
        assertThat(ran.get()).isZero();
    }

    @Test
    void aPayloadItsCodecCannotDecodeGoesStraightToDeadWithTheCodecsMessage() {
        q.enqueue(Job.builder().id("garbled").name("sms").payload("forty-two").build());
        q.enqueue(Job.builder().id("fine").name("sms").payload(42, DECIMAL).build());
        List<Integer> seen = new CopyOnWriteArrayList<>();
        start(Worker.builder(q).handle("sms", DECIMAL, (ctx, n) -> seen.add(n)).retryPolicy(QUICK));
        Awaitility.await().atMost(WAIT).until(() -> q.inspector().stats().dead() == 1 && q.inspector().stats().done() == 1);
        JobInfo garbled = q.get("garbled").orElseThrow();
        assertThat(garbled.state()).isEqualTo(JobState.DEAD);
        assertThat(garbled.attempt()).as("not retried: retrying cannot fix the bytes").isEqualTo(1);
        assertThat(garbled.lastError()).isEqualTo("payload cannot be decoded: For input string: \"forty-two\"");
        assertThat(seen).containsExactly(42);
    }

    @Test
    void aHandlerPastItsJobsTimeoutIsInterruptedItsRunFailsAndTheJobRunsAgain() {
        q.enqueue(Job.builder().id("slow").timeout(Duration.ofMillis(300)).build());
        AtomicInteger interrupted = new AtomicInteger();
        List<String> outcomes = new CopyOnWriteArrayList<>();
        start(Worker.builder(q, ctx -> {
            if (ctx.attempt() == 1) {
                try {
                    TimeUnit.HOURS.sleep(1);
                } catch (InterruptedException e) {
                    interrupted.incrementAndGet();
                    throw e;
                }
            }
        }).retryPolicy(QUICK).listener((job, o) -> outcomes.add(job.attempt() + ":" + o)));
        awaitDone(1);
        JobInfo info = q.get("slow").orElseThrow();
        assertThat(info.attempt()).isEqualTo(2);
        assertThat(info.lastError()).isEqualTo("timed out after 300ms");
        assertThat(interrupted.get()).isEqualTo(1);
        Awaitility.await().atMost(WAIT).until(() -> outcomes.size() == 2);
        assertThat(outcomes).containsExactly("1:RETRY_SCHEDULED", "2:COMPLETED");
    }

    @Test
    void aJobsOwnTimeoutOverridesTheWorkersDefault() {
        q.enqueue(Job.builder().id("patient").timeout(Duration.ofSeconds(30)).build());
        q.enqueue(Job.builder().id("hasty").build());
        start(Worker.builder(q, ctx -> {
            if (ctx.attempt() == 1) {
                TimeUnit.MILLISECONDS.sleep(1000); // past the worker's default, within the job's own timeout
            }
        }).jobTimeout(Duration.ofMillis(300)).concurrency(2).retryPolicy(QUICK));
        awaitDone(2);
        JobInfo patient = q.get("patient").orElseThrow();
        assertThat(patient.attempt()).isEqualTo(1);
        assertThat(patient.lastError()).isNull();
        JobInfo hasty = q.get("hasty").orElseThrow();
        assertThat(hasty.attempt()).isEqualTo(2);
        assertThat(hasty.lastError()).isEqualTo("timed out after 300ms");
    }

    @Test
    void aHandlerThatIgnoresItsTimeoutKeepsItsThreadButItsSlotAndLeaseAreFreed() throws Exception {
        q.enqueue(Job.builder().id("stubborn").build());
        CountDownLatch letGo = new CountDownLatch(1);
        CountDownLatch firstRunStarted = new CountDownLatch(1);
        List<Boolean> leaseLostAfterTimeout = new CopyOnWriteArrayList<>();
        List<String> ran = new CopyOnWriteArrayList<>();
        List<String> outcomes = new CopyOnWriteArrayList<>();
        Worker w = start(Worker.builder(q, ctx -> {
            ran.add(ctx.id() + ":" + ctx.attempt());
            if (ctx.id().equals("stubborn") && ctx.attempt() == 1) {
                firstRunStarted.countDown();
                while (letGo.getCount() > 0) { // ignores every interrupt
                    try {
                        letGo.await();
                    } catch (InterruptedException ignored) {
                        Awaitility.await().atMost(WAIT).until(ctx::leaseLost);
                        leaseLostAfterTimeout.add(ctx.leaseLost());
                    }
                }
            }
        }).jobTimeout(Duration.ofMillis(300)).concurrency(1).retryPolicy(QUICK)
                .listener((job, o) -> outcomes.add(job.id() + ":" + job.attempt() + ":" + o)));
        assertThat(firstRunStarted.await(30, TimeUnit.SECONDS)).isTrue();
        q.enqueue(Job.builder().id("next").build());
        try {
            // The only slot was freed at the deadline: the retry and the next job run while the first thread is stuck.
            awaitDone(2);
            assertThat(ran).containsExactlyInAnyOrder("stubborn:1", "stubborn:2", "next:1");
            // The stuck handler sees its lease lost on its own thread, maybe after the other jobs are done.
            Awaitility.await().atMost(WAIT).until(() -> !leaseLostAfterTimeout.isEmpty());
            assertThat(leaseLostAfterTimeout).containsExactly(true);
            assertThat(q.get("stubborn").orElseThrow().lastError()).isEqualTo("timed out after 300ms");
            assertThat(w.inFlight()).isZero();
        } finally {
            letGo.countDown();
        }
        Awaitility.await().atMost(WAIT).until(() -> outcomes.size() == 3);
        assertThat(outcomes).containsExactlyInAnyOrder("stubborn:1:RETRY_SCHEDULED", "stubborn:2:COMPLETED", "next:1:COMPLETED");
        assertThat(q.inspector().stats().total("completed")).isEqualTo(2);
    }

    /** An id made of {@code stem} and a number that lives in the same partition as {@code other} ({@code stem} on a plain queue). */
    String idBeside(String other, String stem) {
        if (!TestSupport.partitioned(q)) {
            return stem;
        }
        for (int n = 0; ; n++) {
            if (TestSupport.partitionOf(q, stem + n) == TestSupport.partitionOf(q, other)) {
                return stem + n;
            }
        }
    }

    /** The key sets of {@code q}: its partitions, or itself. */
    List<JobQueue> parts() {
        return TestSupport.partitioned(q) ? TestSupport.partitionViews(q) : List.of(q);
    }

    /** The key set of {@code q} that holds {@code id}. */
    JobQueue partOf(String id) {
        return TestSupport.partitioned(q) ? TestSupport.partitionViews(q).get(TestSupport.partitionOf(q, id)) : q;
    }

    /** {@code perPartition} ids made of {@code stem} and a number in each partition of {@code q}. */
    List<String> idsPerPartition(String stem, int perPartition) {
        Map<Integer, List<String>> found = new java.util.TreeMap<>();
        for (int n = 0; found.size() < partitions() || found.values().stream().anyMatch(l -> l.size() < perPartition); n++) {
            int p = TestSupport.partitioned(q) ? TestSupport.partitionOf(q, stem + n) : 0;
            List<String> ids = found.computeIfAbsent(p, k -> new ArrayList<>());
            if (ids.size() < perPartition) {
                ids.add(stem + n);
            }
        }
        return found.values().stream().flatMap(List::stream).toList();
    }

    /** The raw key {@code <prefix>:{<q or its partition holding routingKey>}:<suffix>}. */
    String key(String routingKey, String suffix) {
        String tag = TestSupport.partitioned(q) ? q.name() + "#" + TestSupport.partitionOf(q, routingKey)
                : q.name();
        return t.prefix() + ":{" + tag + "}:" + suffix;
    }

    private long evalshaCalls() {
        return t.target().calls("evalsha");
    }

    @Test
    void closeHandsBackUnfinishedJobsAtOnceAndLetsQuickOnesFinish() throws Exception {
        for (String id : List.of("quick-1", "quick-2", "stuck-1", "stuck-2")) {
            q.enqueue(Job.builder().id(id).build());
        }
        CountDownLatch allStarted = new CountDownLatch(4);
        AtomicInteger interrupted = new AtomicInteger();
        List<String> outcomes = new CopyOnWriteArrayList<>();
        Worker w = start(Worker.builder(q, job -> {
            allStarted.countDown();
            if (job.id().startsWith("stuck")) {
                try {
                    TimeUnit.HOURS.sleep(1);
                } catch (InterruptedException e) {
                    interrupted.incrementAndGet();
                    throw e;
                }
            } else {
                allStarted.await(10, TimeUnit.SECONDS);
            }
        }).concurrency(4).shutdownGrace(Duration.ofMillis(300)).listener((job, o) -> outcomes.add(job.id() + ":" + o)));
        assertThat(allStarted.await(30, TimeUnit.SECONDS)).isTrue();
        long closeAt = t.redisNow();
        w.close();
        assertThat(q.get("quick-1").orElseThrow().state()).isEqualTo(JobState.DONE);
        assertThat(q.get("quick-2").orElseThrow().state()).isEqualTo(JobState.DONE);
        for (String id : List.of("stuck-1", "stuck-2")) {
            JobInfo info = q.get(id).orElseThrow();
            assertThat(info.state()).isEqualTo(JobState.SCHEDULED);
            assertThat(info.attempt()).isZero();
            assertThat(info.dueAtMillis()).isLessThanOrEqualTo(closeAt); // claimable at once, no lease wait
        }
        Awaitility.await().atMost(WAIT).until(() -> interrupted.get() == 2);
        assertThat(outcomes).containsExactlyInAnyOrder("quick-1:COMPLETED", "quick-2:COMPLETED", "stuck-1:HANDED_BACK",
                "stuck-2:HANDED_BACK");
        assertThat(q.leases().claim(ClaimOptions.of(10, Duration.ofSeconds(30))).jobs()).hasSize(2)
                .allSatisfy(j -> q.leases().complete(j.lease()));
    }

    @Test
    void closeFromAnInterruptedThreadStillHandsBackItsJobsAndEndsItsThreads() throws Exception {
        q.enqueue(Job.builder().id("stuck").build());
        CountDownLatch started = new CountDownLatch(1);
        Worker w = start(Worker.builder(q, job -> {
            started.countDown();
            TimeUnit.HOURS.sleep(1);
        }).concurrency(2).shutdownGrace(Duration.ofMillis(200)).name("interrupted-closer"));
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
        Thread.currentThread().interrupt(); // e.g. a container's shutdown thread, or a test framework's timeout
        try {
            w.close();
            assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is kept for the caller").isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(w.isRunning()).isFalse();
        JobInfo info = q.get("stuck").orElseThrow();
        assertThat(info.state()).as("handed back, not left leased by a worker that is gone").isEqualTo(JobState.SCHEDULED);
        assertThat(info.attempt()).isZero();
        // No thread of the worker is left (its handler threads are not daemons: they would keep the JVM alive).
        Awaitility.await().atMost(WAIT).until(() -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(th -> th.isAlive() && th.getName().startsWith("interrupted-closer-")));
        List<ClaimedJob> again = q.leases().claim(ClaimOptions.of(1, Duration.ofSeconds(30))).jobs();
        assertThat(again).extracting(ClaimedJob::id).containsExactly("stuck");
        q.leases().complete(again.get(0).lease());
    }

    @Test
    void jobsFinishingAsCloseBeginsAreAcknowledgedBeforeCloseReturns() throws Exception {
        for (int i = 0; i < 8; i++) {
            q.enqueue(Job.builder().id("edge" + i).build());
        }
        CountDownLatch started = new CountDownLatch(8);
        CountDownLatch release = new CountDownLatch(1);
        Worker w = start(Worker.builder(q, job -> {
            started.countDown();
            release.await(30, TimeUnit.SECONDS);
        }).concurrency(8).ackLinger(Duration.ofMillis(50)));
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
        release.countDown();
        w.close();
        for (int i = 0; i < 8; i++) {
            assertThat(q.get("edge" + i).orElseThrow().state()).as("edge" + i).isEqualTo(JobState.DONE);
        }
    }

    @Test
    void metricsCountWhatHappened() {
        for (int i = 0; i < 10; i++) {
            q.enqueue(Job.builder().id("m" + i).build());
        }
        q.enqueue(Job.builder().id("bad").build());
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        start(Worker.builder(q, job -> {
            if (job.id().equals("bad")) {
                throw new NonRetryableException("bad");
            }
        }).metrics(new MicrometerMetrics(registry, Duration.ZERO)));
        Awaitility.await().atMost(WAIT).until(() -> registry.get("delayq.jobs.completed").tags("queue", "w").counter().count() == 10
                && registry.get("delayq.jobs.dead").tags("queue", "w").counter().count() == 1);
        assertThat(registry.get("delayq.jobs.claimed").tags("queue", "w").counter().count()).isEqualTo(11);
        assertThat(registry.get("delayq.jobs.failed").tags("queue", "w").counter().count()).isEqualTo(1);
        assertThat(registry.get("delayq.dispatch.lag").tags("queue", "w").timer().count()).isEqualTo(11);
        assertThat(registry.get("delayq.processing.time").tags("queue", "w").timer().count()).isEqualTo(11);
        assertThat(registry.get("delayq.queue.depth").tags("queue", "w", "state", "done").gauge().value()).isEqualTo(10);
        assertThat(registry.get("delayq.queue.depth").tags("queue", "w", "state", "dead").gauge().value()).isEqualTo(1);
        assertThat(registry.get("delayq.jobs.in_flight").tags("queue", "w").gauge().value()).isZero();
    }

    @Test
    void theMetersShowTheJobsKeptPastTheirRetention() {
        // Done jobs kept 100 ms. A first worker purges (so the queue's retention is known), then one that does not
        // purge (interval zero) runs five more: the gauge an operator watches shows them kept past their retention.
        DelayQ shortHistory = t.client(b -> b.doneRetention(Duration.ofMillis(100)));
        JobQueue kept = t.queue(shortHistory, "kept");
        kept.enqueue(Job.builder().id("first").build());
        try (Worker purging = Worker.builder(kept, job -> { }).purgeInterval(Duration.ofMillis(200)).build().start()) {
            Awaitility.await().atMost(WAIT).until(() -> kept.inspector().stats().total("completed") == 1 && kept.inspector().stats().done() == 0
                    && kept.inspector().stats().pastRetention() == 0);
        }
        for (int i = 0; i < 5; i++) {
            kept.enqueue(Job.builder().id("k" + i).build());
        }
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        start(Worker.builder(kept, job -> { }).purgeInterval(Duration.ZERO).metrics(new MicrometerMetrics(registry, Duration.ZERO)));
        Awaitility.await().atMost(WAIT).until(() -> kept.inspector().stats().pastRetention() == 5);
        assertThat(registry.get("delayq.queue.past_retention").tags("queue", "kept").gauge().value()).isEqualTo(5);
        assertThat(kept.inspector().stats().done()).isEqualTo(5);
    }

    @Test
    void workersPurgeFinishedJobsPastRetention() {
        DelayQ shortHistory = t.client(b -> b.doneRetention(Duration.ofMillis(100)));
        JobQueue sq = t.queue(shortHistory, "purged");
        for (int i = 0; i < 5; i++) {
            sq.enqueue(Job.builder().id("p" + i).build());
        }
        start(Worker.builder(sq, job -> { }).purgeInterval(Duration.ofMillis(200)));
        Awaitility.await().atMost(WAIT).until(() -> sq.inspector().stats().total("completed") == 5 && sq.inspector().stats().done() == 0);
        assertThat(sq.get("p0")).isEmpty();
    }

    @Test
    void lookaheadNeverStartsAJobBeforeItsDueTime() {
        int n = 200;
        long base = t.redisNow() + 500;
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            jobs.add(Job.builder().id("la" + i).runAt(java.time.Instant.ofEpochMilli(base + i * 5L)).build());
        }
        q.enqueueAll(jobs);
        Map<String, Long> early = new ConcurrentHashMap<>();
        start(Worker.builder(q, job -> {
            long now = t.redisNow();
            if (now < job.dueAt().toEpochMilli()) {
                early.put(job.id(), job.dueAt().toEpochMilli() - now);
            }
        }).lookahead(Duration.ofMillis(200)).concurrency(50));
        awaitDone(n);
        assertThat(early).isEmpty();
    }

    @Test
    void aRunningWorkerIsListedWithTheJobItRunsAndLeavesTheRegistryAtOnceWhenItCloses() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Worker w = start(Worker.builder(q, job -> {
            started.countDown();
            release.await(60, TimeUnit.SECONDS);
        }).name("beating").concurrency(3).heartbeatInterval(Duration.ofMillis(200)));
        long before = t.redisNow();
        q.enqueue(Job.builder().id("slow").build());
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
        QueueInspector inspector = dq.inspector("w");
        Awaitility.await().atMost(WAIT).until(() -> inspector.workers().stream().anyMatch(i -> !i.running().isEmpty()));
        List<WorkerInfo> listed = inspector.workers();
        long after = t.redisNow();
        assertThat(listed).hasSize(1);
        WorkerInfo info = listed.get(0);
        assertThat(info.name()).isEqualTo("beating");
        assertThat(info.id()).startsWith("beating#");
        assertThat(info.host()).isNotBlank();
        assertThat(info.pid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(info.queues()).containsExactly("w");
        assertThat(info.concurrency()).isEqualTo(3);
        assertThat(info.version()).isNotBlank().doesNotContain("${");
        assertThat(info.running()).extracting(WorkerInfo.RunningJob::id).containsExactly("slow");
        // Redis's clock: the job started after it was enqueued, and the worker before the job.
        long jobStart = info.running().get(0).startedAt().toEpochMilli();
        assertThat(jobStart).isBetween(before - 50, after);
        assertThat(info.startedAt().toEpochMilli()).isLessThanOrEqualTo(jobStart + 50);
        assertThat(info.lastBeat().toEpochMilli()).isBetween(jobStart, after);

        release.countDown();
        w.close();
        assertThat(inspector.workers()).as("a closed worker leaves at once, not after its heartbeat expires").isEmpty();
    }
}
