package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Per-group limits and weights (groups.lua), enforced inside the claim script. */
class GroupLimitsTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private TestSupport t;
    private JobQueue q;

    @BeforeEach
    void open() {
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
        q = t.queue(t.client(), "glimits");
    }

    @AfterEach
    void close() {
        t.close();
    }

    private void enqueue(String group, int n) {
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            jobs.add(Job.builder().id(group + "-" + String.format("%03d", i)).group(group).build());
        }
        q.enqueueAll(jobs);
    }

    private ClaimBatch claim(int n) {
        return q.leases().claim(ClaimOptions.of(n, Duration.ofMinutes(5)));
    }

    private static long of(ClaimBatch b, String group) {
        return b.jobs().stream().filter(j -> group.equals(j.group())).count();
    }

    @Test
    void aGroupConcurrencyLimitIsFreedExactlyOnceByCompleteFailReleaseAndLeaseExpiry() {
        q.inspector().groupLimits(Limits.ofConcurrency(2));
        enqueue("a", 20);
        enqueue("b", 20);
        ClaimBatch first = claim(10);
        assertThat(of(first, "a")).isEqualTo(2);
        assertThat(of(first, "b")).isEqualTo(2);
        ClaimBatch none = claim(10);
        assertThat(none.jobs()).isEmpty();
        assertThat(none.nextDueMillis()).as("held by concurrency: wait for a notice").isEqualTo(-1);
        List<ClaimedJob> a = first.jobs().stream().filter(j -> j.group().equals("a")).toList();
        List<ClaimedJob> b = first.jobs().stream().filter(j -> j.group().equals("b")).toList();
        // complete: one lease of a free
        q.leases().complete(a.get(0).lease());
        ClaimBatch c1 = claim(10);
        assertThat(c1.jobs()).extracting(ClaimedJob::group).containsExactly("a");
        assertThat(claim(10).jobs()).isEmpty();
        // fail (retried): one lease of b free, and a second fail of the same lease frees nothing more
        q.leases().fail(b.get(0).lease(), "x", true, Duration.ofHours(1));
        q.leases().fail(b.get(0).lease(), "x", true, Duration.ofHours(1));
        assertThat(claim(10).jobs()).extracting(ClaimedJob::group).containsExactly("b");
        assertThat(claim(10).jobs()).isEmpty();
        // release
        q.leases().release(List.of(b.get(1).lease()));
        ClaimBatch again = q.leases().claim(ClaimOptions.of(10, Duration.ofMillis(1)));
        assertThat(again.jobs()).extracting(ClaimedJob::group).containsExactly("b");
        // lease expiry: the 1 ms lease runs out and its recovery frees it
        t.awaitRedisTime(again.serverTimeMillis() + 5);
        assertThat(q.leases().recover(10, RetryPolicy.defaults()).recovered()).isEqualTo(1);
        ClaimBatch after = claim(10);
        assertThat(after.jobs()).extracting(ClaimedJob::group).containsExactly("b");
        GroupStats s = q.inspector().groups(10);
        assertThat(s.limits().concurrency()).isEqualTo(2);
        // b has 18 (its failed job waits for its retry), a 17: the larger backlog first
        assertThat(s.top()).extracting(GroupStats.Group::group).containsExactly("b", "a");
        assertThat(s.top()).extracting(GroupStats.Group::scheduled).containsExactly(18L, 17L);
        assertThat(s.top()).extracting(GroupStats.Group::running).containsExactly(2L, 2L);
        // no limit: the rest run
        q.inspector().groupLimits(Limits.none());
        ClaimBatch rest = claim(100);
        assertThat(of(rest, "a")).isEqualTo(17);
        assertThat(of(rest, "b")).isBetween(16L, 17L); // not the failed one; the recovered one once its backoff ran out
    }

    @Test
    void aGroupRateLimitHoldsInTheWindowAndSaysWhenToComeBack() {
        q.inspector().groupLimits(Limits.rate(3, Duration.ofMinutes(10)));
        enqueue("a", 10);
        enqueue("b", 10);
        ClaimBatch first = claim(100);
        assertThat(of(first, "a")).isEqualTo(3);
        assertThat(of(first, "b")).isEqualTo(3);
        q.leases().completeAllAsync(first.jobs().stream().map(ClaimedJob::lease).toList()).join();
        ClaimBatch none = claim(100);
        assertThat(none.jobs()).isEmpty();
        assertThat(none.nextDueMillis()).as("when the window frees a grant")
                .isBetween(first.serverTimeMillis() + 600_000, none.serverTimeMillis() + 600_000);
    }

    @Test
    void aGroupOverrideReplacesWhatItNamesAndClearGoesBackToTheDefault() {
        q.inspector().groupLimits(Limits.ofConcurrency(3));
        q.inspector().groupLimits("a", Limits.ofConcurrency(1));
        q.inspector().groupLimits("a", Limits.rate(100, Duration.ofSeconds(1))); // keeps its concurrency
        enqueue("a", 10);
        enqueue("b", 10);
        ClaimBatch first = claim(100);
        assertThat(of(first, "a")).isEqualTo(1);
        assertThat(of(first, "b")).isEqualTo(3);
        GroupStats s = q.inspector().groups(10);
        GroupStats.Group a = s.top().stream().filter(g -> g.group().equals("a")).findFirst().orElseThrow();
        assertThat(a.limits().concurrency()).isEqualTo(1);
        assertThat(a.limits().rateJobs()).isEqualTo(100);
        q.inspector().clearGroupLimits("a");
        ClaimBatch second = claim(100);
        assertThat(of(second, "a")).isEqualTo(2);
        assertThat(of(second, "b")).isZero();
        assertThatThrownBy(() -> q.inspector().groupLimits("a", Limits.none()))
                .hasMessageContaining("must name a concurrency or a rate limit");
        assertThatThrownBy(() -> q.inspector().groupWeight("a", 0)).hasMessageContaining("group weight");
        assertThatThrownBy(() -> q.inspector().clearGroupLimits("a b")).hasMessageContaining("group 'a b' is invalid");
    }

    @Test
    void aGroupHeldByItsLimitNeverHoldsBackTheOthers() {
        q.inspector().groupLimits("big", Limits.ofConcurrency(1));
        enqueue("big", 100);
        enqueue("small", 5);
        List<String> order = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            ClaimBatch b = claim(1);
            b.jobs().forEach(j -> order.add(j.group()));
        }
        assertThat(order).containsExactlyInAnyOrder("big", "small", "small", "small", "small", "small");
        assertThat(order.subList(0, 2)).containsExactlyInAnyOrder("big", "small");
    }

    @Test
    void aWeightGivesAGroupThatManyJobsPerTurn() {
        q.inspector().groupWeight("a", 3);
        enqueue("a", 10);
        enqueue("b", 10);
        ClaimBatch b = claim(8);
        assertThat(of(b, "a")).isEqualTo(6);
        assertThat(of(b, "b")).isEqualTo(2);
        assertThat(q.inspector().groups(1).top()).extracting(GroupStats.Group::weight).containsExactly(1);
        assertThat(q.inspector().groups(5).top()).filteredOn(g -> g.group().equals("a"))
                .extracting(GroupStats.Group::weight).containsExactly(3);
    }

    @Test
    void threeWorkersNeverRunMoreOfAGroupThanItsLimit() throws Exception {
        q.inspector().groupLimits(Limits.ofConcurrency(2));
        enqueue("a", 40);
        enqueue("b", 40);
        Map<String, AtomicInteger> now = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> max = new ConcurrentHashMap<>();
        AtomicInteger done = new AtomicInteger();
        List<Worker> workers = new ArrayList<>();
        for (int w = 0; w < 3; w++) {
            JobQueue mine = t.client().queue("glimits");
            workers.add(Worker.builder(mine, ctx -> {
                int in = now.computeIfAbsent(ctx.group(), g -> new AtomicInteger()).incrementAndGet();
                max.computeIfAbsent(ctx.group(), g -> new AtomicInteger()).accumulateAndGet(in, Math::max);
                Thread.sleep(2); // the job's work
                now.get(ctx.group()).decrementAndGet();
                done.incrementAndGet();
            }).concurrency(4).build().start());
        }
        try {
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> done.get() == 80
                    && q.inspector().groups(10).top().isEmpty()); // every lease ended: no group holds one
        } finally {
            workers.forEach(Worker::close);
        }
        assertThat(max.get("a").get()).isBetween(1, 2);
        assertThat(max.get("b").get()).isBetween(1, 2);
        assertThat(q.inspector().groups(10).groups()).isZero();
    }
}
