package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Rate and concurrency limits, priorities, progress and the event stream, enforced and written by the scripts. */
class FlowControlTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private TestSupport t;
    private DelayQ dq;
    private JobQueue q;

    @BeforeEach
    void open() {
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
        dq = t.client();
        q = t.queue(dq, "flow");
    }

    @AfterEach
    void close() {
        t.close();
    }

    private void enqueueDue(int n) {
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            jobs.add(Job.builder().id(String.format("j%04d", i)).build());
        }
        q.enqueueAll(jobs);
    }

    /** A claim's grant: when Redis handed out how many jobs. */
    private record Grant(long atMillis, int jobs) {
    }

    @Test
    void aRateLimitHoldsInEveryWindowAcrossClaimersAndARefusedClaimerIsToldWhenToComeBack() throws Exception {
        q.inspector().limits(Limits.rate(20, Duration.ofMillis(500)));
        assertThat(q.inspector().limits()).isEqualTo(Limits.rate(20, Duration.ofMillis(500)));
        assertThat(q.inspector().stats().limits().rateJobs()).isEqualTo(20);
        enqueueDue(100);
        List<Grant> grants = new CopyOnWriteArrayList<>();
        AtomicInteger claims = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        List<Future<?>> claimers = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
            JobQueue mine = t.client().queue("flow"); // three clients, as three workers
            claimers.add(pool.submit(() -> {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (q.inspector().stats().scheduled() > 0 && System.nanoTime() < deadline) {
                    ClaimBatch b = mine.leases().claim(ClaimOptions.of(15, Duration.ofMinutes(1)));
                    claims.incrementAndGet();
                    if (!b.jobs().isEmpty()) {
                        grants.add(new Grant(b.serverTimeMillis(), b.jobs().size()));
                        mine.leases().completeAllAsync(b.jobs().stream().map(ClaimedJob::lease).toList()).join();
                    } else if (b.nextDueMillis() > b.serverTimeMillis()) {
                        // Refused by the limit: it names when the window frees a grant; come back then, not sooner.
                        t.awaitRedisTime(b.nextDueMillis() - 1);
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : claimers) {
            f.get(90, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertThat(grants.stream().mapToInt(Grant::jobs).sum()).isEqualTo(100);
        for (Grant g : grants) {
            int inWindow = grants.stream().filter(o -> o.atMillis() > g.atMillis() - 500 && o.atMillis() <= g.atMillis())
                    .mapToInt(Grant::jobs).sum();
            assertThat(inWindow).as("jobs handed out in the 500 ms window ending at %d", g.atMillis()).isLessThanOrEqualTo(20);
        }
        long first = grants.stream().mapToLong(Grant::atMillis).min().orElseThrow();
        long last = grants.stream().mapToLong(Grant::atMillis).max().orElseThrow();
        assertThat(last - first).as("100 jobs at 20 per 500 ms take at least four windows").isGreaterThanOrEqualTo(2000);
        // Refused claimers sleep until the window frees: a few claims per window and claimer, not a spin.
        assertThat(claims.get()).as("claim calls").isLessThan(3 * 12 * 4);
        q.inspector().limits(Limits.none());
        assertThat(q.inspector().limits()).isEqualTo(Limits.none());
    }

    @Test
    void aClaimUnderALongRateWindowCostsNoMoreForTheGrantsAlreadyInIt() {
        // An hour's quota with 20,000 grants in its window, as claims of one job each would leave them (seeded by hand:
        // claiming them would take minutes), against a queue without a limit: the claim's own cost in Redis
        // (INFO commandstats, which times each script) must not grow with the grants. Before, every claim read and
        // summed the whole window: 300 times the cost here.
        JobQueue limited = t.queue(dq, "hourly");
        limited.inspector().limits(Limits.rate(1_000_000, Duration.ofHours(1)));
        limited.enqueue(Job.builder().id("seed").build());
        limited.leases().completeAllAsync(limited.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1))).jobs().stream()
                .map(ClaimedJob::lease).toList()).join();
        String log = REDIS.prefix() + ":{hourly}:rate";
        long now = t.redisNow();
        List<String> zadd = new ArrayList<>(List.of("ZADD", log));
        for (int i = 0; i < 20_000; i++) {
            zadd.add(Long.toString(now - 1_000 - i % 60_000));
            zadd.add((1_000_000 + i) + ":1");
        }
        REDIS.server().call(zadd.toArray(String[]::new));
        REDIS.server().call("HINCRBY", REDIS.prefix() + ":{hourly}:meta", "rate_used", "20000");
        JobQueue free = t.queue(dq, "unlimited");
        int n = 50;
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            jobs.add(Job.builder().id("c" + i).build());
        }
        limited.enqueueAll(jobs);
        free.enqueueAll(jobs);
        double withGrants = microsPerClaim(limited, n);
        double without = microsPerClaim(free, n);
        assertThat(withGrants).as("µs a claim with 20,000 grants in the window, against %.1f without a limit", without)
                .isLessThan(10 * without);
        assertThat(limited.inspector().stats().limits().rateJobs()).isEqualTo(1_000_000);
    }

    /** Redis's own time per claim script (INFO commandstats) over {@code n} claims of one job each, completed. */
    private double microsPerClaim(JobQueue queue, int n) {
        long[] before = evalshaStats();
        List<ClaimedJob> got = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            got.addAll(queue.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1))).jobs());
        }
        long[] after = evalshaStats();
        assertThat(got).hasSize(n);
        queue.leases().completeAllAsync(got.stream().map(ClaimedJob::lease).toList()).join();
        return (double) (after[1] - before[1]) / (after[0] - before[0]);
    }

    /** {calls, usec} of EVALSHA so far. */
    private static long[] evalshaStats() {
        String line = REDIS.server().info("commandstats").getOrDefault("cmdstat_evalsha", "calls=0,usec=0,");
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("calls=(\\d+),usec=(\\d+)").matcher(line);
        assertThat(m.find()).as(line).isTrue();
        return new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))};
    }

    @Test
    void aConcurrencyLimitHoldsAcrossWorkersAndACompletionWakesTheRefusedOnes() {
        q.inspector().limits(Limits.ofConcurrency(5));
        enqueueDue(60);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        List<Worker> workers = new ArrayList<>();
        try {
            for (int w = 0; w < 3; w++) {
                workers.add(Worker.builder(t.client().queue("flow"), ctx -> {
                    most.accumulateAndGet(running.incrementAndGet(), Math::max);
                    Thread.sleep(20);
                    running.decrementAndGet();
                    done.incrementAndGet();
                }).concurrency(10).lookahead(Duration.ZERO).build().start());
            }
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> q.inspector().stats().done() == 60);
        } finally {
            workers.forEach(Worker::close);
        }
        assertThat(most.get()).as("jobs running at once across three workers of concurrency 10").isBetween(1, 5);
    }

    @Test
    void dueJobsAreClaimedByPriorityThenDueTimeThenEnqueueOrderAndNoneRunsEarly() {
        List<Job> jobs = new ArrayList<>();
        Random random = new Random(7);
        List<int[]> spec = new ArrayList<>(); // {priority, index}
        for (int i = 0; i < 40; i++) {
            int p = random.nextInt(4) * 3; // 0, 3, 6, 9
            spec.add(new int[] {p, i});
            jobs.add(Job.builder().id("p" + p + "-" + String.format("%02d", i)).priority(p).build());
        }
        jobs.add(Job.builder().id("urgent-later").priority(9).delay(Duration.ofHours(1)).build());
        q.enqueueAll(jobs);
        List<String> order = new ArrayList<>();
        while (true) {
            ClaimBatch b = q.leases().claim(ClaimOptions.of(7, Duration.ofMinutes(1)));
            if (b.jobs().isEmpty()) {
                break;
            }
            b.jobs().forEach(j -> order.add(j.id()));
            q.leases().completeAllAsync(b.jobs().stream().map(ClaimedJob::lease).toList()).join();
        }
        List<String> expected = new ArrayList<>();
        spec.sort((a, b) -> a[0] != b[0] ? Integer.compare(b[0], a[0]) : Integer.compare(a[1], b[1]));
        spec.forEach(s -> expected.add("p" + s[0] + "-" + String.format("%02d", s[1])));
        assertThat(order).containsExactlyElementsOf(expected);
        JobInfo later = q.get("urgent-later").orElseThrow();
        assertThat(later.state()).as("a job not due yet never runs early for its priority").isEqualTo(JobState.SCHEDULED);
        assertThat(later.priority()).isEqualTo(9);
        assertThat(q.inspector().list(JobState.SCHEDULED, 0, 10)).extracting(JobInfo::id).containsExactly("urgent-later");
        assertThat(q.inspector().stats().scheduled()).isEqualTo(1);
        assertThat(q.reschedule("urgent-later", Duration.ZERO).changed()).isTrue();
        assertThat(q.leases().claim(ClaimOptions.of(5, Duration.ofMinutes(1))).jobs()).extracting(ClaimedJob::id)
                .containsExactly("urgent-later");
        assertThatThrownBy(() -> Job.builder().priority(10).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("priority is 10: it must be between 0 and 9");
    }

    @Test
    void everyStateChangeIsOneEventInOrderAndNoneIsWrittenWhileEventsAreOff() {
        q.enqueue(Job.builder().id("quiet").build()); // events off: nothing written
        assertThat(REDIS.server().call("EXISTS", REDIS.prefix() + ":{flow}:events")).isEqualTo(0L);
        q.inspector().events(true);
        assertThat(q.inspector().events().enabled()).isTrue();
        q.enqueueAll(List.of(Job.builder().id("a").maxAttempts(2).build(), Job.builder().id("b").delay(Duration.ofHours(1)).build()));
        List<ClaimedJob> claimed = q.leases().claim(ClaimOptions.of(5, Duration.ofMinutes(1))).jobs();
        ClaimedJob a = claimed.stream().filter(j -> j.id().equals("a")).findFirst().orElseThrow();
        ClaimedJob quiet = claimed.stream().filter(j -> j.id().equals("quiet")).findFirst().orElseThrow();
        assertThat(q.leases().progressAsync(a.lease(), "{\"done\":40}").join()).isEqualTo(Ack.OK);
        assertThat(q.get("a").orElseThrow().progress()).isEqualTo("{\"done\":40}");
        q.leases().fail(a.lease(), "boom", true, Duration.ZERO);
        assertThat(q.get("a").orElseThrow().progress()).as("progress goes with the run").isNull();
        q.leases().complete(quiet.lease());
        q.cancel("b");
        List<JobEvent> events = q.inspector().events().read("0", 100);
        assertThat(events).extracting(e -> e.type() + " " + e.jobId()).containsExactly(
                "enqueued a", "enqueued b", "started quiet", "started a", "progress a", "retried a", "completed quiet",
                "cancelled b");
        assertThat(events.get(3).fields()).containsEntry("attempt", "1").containsKey("token");
        List<JobEvent> after = q.inspector().events().read(events.get(5).eventId(), 100);
        assertThat(after).extracting(JobEvent::type).containsExactly("completed", "cancelled");
        q.inspector().events(false);
        assertThat(q.inspector().events().enabled()).isFalse();
        q.enqueue(Job.builder().id("after").build());
        assertThat(REDIS.server().call("EXISTS", REDIS.prefix() + ":{flow}:events")).isEqualTo(0L);
        q.leases().claim(ClaimOptions.of(5, Duration.ofMinutes(1))).jobs().forEach(j -> q.leases().complete(j.lease()));
    }

    @Test
    void theStreamKeepsExactlyItsCapAndAListenerHearsEveryNewEvent() throws Exception {
        q.inspector().events(5);
        for (int i = 0; i < 8; i++) {
            q.enqueue(Job.builder().id("e" + i).delay(Duration.ofHours(1)).build());
        }
        assertThat(q.inspector().events().read("0", 100)).extracting(JobEvent::jobId).containsExactly("e3", "e4", "e5", "e6", "e7");
        q.inspector().events(1000);
        List<JobEvent> heard = new CopyOnWriteArrayList<>();
        try (AutoCloseable listening = q.inspector().events().listen("$", heard::add)) {
            q.cancel("e1");
            q.cancel("e2");
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> heard.size() == 2);
        }
        assertThat(heard).extracting(e -> e.type() + " " + e.jobId()).containsExactly("cancelled e1", "cancelled e2");
        assertThatThrownBy(() -> q.inspector().events().read("yesterday", 10)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("use 0 (the oldest kept), $ (only new ones) or an id");
        for (int i = 0; i < 8; i++) {
            q.cancel("e" + i);
        }
    }

    @Test
    void aPausedQueueHandsOutNothingAndResumeWakesItsWorkers() {
        enqueueDue(3);
        q.inspector().pause();
        assertThat(q.inspector().stats().paused()).isTrue();
        ClaimBatch b = q.leases().claim(ClaimOptions.of(5, Duration.ofMinutes(1)));
        assertThat(b.paused()).isTrue();
        assertThat(b.jobs()).isEmpty();
        assertThat(b.nextDueMillis()).isEqualTo(ClaimBatch.NONE);
        q.inspector().resume();
        assertThat(q.leases().claim(ClaimOptions.of(5, Duration.ofMinutes(1))).jobs()).hasSize(3)
                .allSatisfy(j -> q.leases().complete(j.lease()));
    }

    @Test
    void workersUnderARateLimitNeverExceedItAndAHandlerReportsItsProgress() {
        q.inspector().limits(Limits.rate(20, Duration.ofMillis(500)));
        q.inspector().events(true);
        enqueueDue(60);
        List<String> progressSeen = new CopyOnWriteArrayList<>();
        List<Worker> workers = new ArrayList<>();
        try {
            for (int w = 0; w < 3; w++) {
                JobQueue mine = t.client().queue("flow");
                workers.add(Worker.builder(mine, ctx -> {
                    if (ctx.id().equals("j0007")) {
                        assertThat(ctx.progress(40).join()).isEqualTo(Ack.OK);
                        progressSeen.add(mine.get(ctx.id()).orElseThrow().progress());
                    }
                }).concurrency(10).build().start());
            }
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> q.inspector().stats().done() == 60);
        } finally {
            workers.forEach(Worker::close);
        }
        assertThat(progressSeen).containsExactly("40");
        assertThat(q.get("j0007").orElseThrow().progress()).as("progress goes with the run").isNull();
        // The limit counts jobs handed out, at the claim's time on Redis's clock (the entry's own id is written a little
        // later in the same script).
        List<Long> starts = q.inspector().events().read("0", 10_000).stream().filter(e -> e.type().equals("started"))
                .map(e -> Long.parseLong(e.fields().get("at"))).sorted().toList();
        assertThat(starts).hasSize(60);
        for (int i = 0; i < starts.size(); i++) {
            long end = starts.get(i);
            long inWindow = starts.stream().filter(at -> at > end - 500 && at <= end).count();
            assertThat(inWindow).as("jobs handed out in the 500 ms window ending at %d", end).isLessThanOrEqualTo(20);
        }
        assertThat(starts.get(59) - starts.get(0)).as("60 jobs at 20 per 500 ms span at least two windows").isGreaterThanOrEqualTo(1000);
    }
}
