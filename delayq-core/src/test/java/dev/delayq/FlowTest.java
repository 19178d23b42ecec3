package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.testkit.RedisExtension;
import dev.delayq.testkit.Resp;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Flows (docs/flows.md, lua/includes/deps.lua): jobs that wait for other jobs of the same queue, released by the last
 * parent's end in the same script, made dead by a dead parent unless told to ignore it.
 */
class FlowTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private TestSupport t;
    private DelayQ dq;
    private JobQueue q;
    private Resp raw;
    private String p;

    @BeforeEach
    void open() {
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
        dq = t.client();
        q = t.queue(dq, "f");
        raw = REDIS.server().connect();
        p = REDIS.prefix() + ":{f}:";
    }

    @AfterEach
    void close() throws IOException {
        raw.close();
        t.close();
    }

    private Object call(String... args) {
        try {
            return raw.callRaw(args);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private void enqueue(String id, String... parents) {
        Job.Builder b = Job.builder().id(id).payload("of " + id);
        if (parents.length > 0) {
            b.after(parents);
        }
        assertThat(q.enqueue(b.build()).created()).isTrue();
    }

    private JobState state(String id) {
        return q.get(id).orElseThrow().state();
    }

    /** Claims every due job, one call, and returns them by id. */
    private Map<String, ClaimedJob> claim() {
        Map<String, ClaimedJob> out = new HashMap<>();
        for (ClaimedJob j : q.leases().claim(ClaimOptions.of(1000, Duration.ofSeconds(30))).jobs()) {
            out.put(j.id(), j);
        }
        return out;
    }

    private void complete(ClaimedJob j) {
        assertThat(q.leases().complete(j.lease())).isEqualTo(Ack.OK);
    }

    @Test
    void aChildWaitsForEveryParentAndTheLastCompletionReleasesIt() {
        enqueue("p1");
        enqueue("p2");
        enqueue("p3");
        enqueue("c", "p1", "p2", "p3");
        assertThat(state("c")).isEqualTo(JobState.WAITING);
        JobInfo waiting = q.inspector().list(JobState.WAITING, 0, 10).get(0);
        assertThat(waiting.id()).isEqualTo("c");
        assertThat(waiting.corrupt()).isFalse();
        assertThat(waiting.payloadUtf8()).isEqualTo("of c");
        assertThat(waiting.enqueuedAtMillis()).isPositive();
        Map<String, ClaimedJob> parents = claim();
        assertThat(parents).containsOnlyKeys("p1", "p2", "p3");
        complete(parents.get("p1"));
        complete(parents.get("p2"));
        assertThat(state("c")).isEqualTo(JobState.WAITING);
        assertThat(claim()).isEmpty();
        complete(parents.get("p3"));
        assertThat(state("c")).isEqualTo(JobState.SCHEDULED);
        assertThat(claim()).containsOnlyKeys("c");
        // Every link is gone once released.
        assertThat((List<?>) call("KEYS", p + "children:*")).isEmpty();
        assertThat(call("EXISTS", p + "deps")).isEqualTo(0L);
        assertThat(call("ZCARD", p + "waiting")).isEqualTo(0L);
    }

    @Test
    void statsLinksAndCheckSeeTheWaitingJobs() {
        enqueue("p1");
        enqueue("p2");
        enqueue("c", "p1", "p2");
        QueueStats s = q.inspector().stats();
        assertThat(s.waiting()).isEqualTo(1);
        assertThat(s.scheduled()).isEqualTo(2);
        assertThat(q.inspector().links("c")).hasValue(new FlowLinks(2, 0, 0, OnParentDead.DEAD, 0));
        assertThat(q.inspector().links("p1")).hasValue(new FlowLinks(-1, -1, -1, OnParentDead.DEAD, 1));
        assertThat(q.inspector().links("nope")).isEmpty();
        assertThat(q.inspector().check().problems()).isEmpty();
        complete(claim().get("p1"));
        assertThat(q.inspector().links("c").orElseThrow().doneParents()).isEqualTo(1);
        assertThat(q.inspector().check().problems()).isEmpty();
        // A hand that takes the child out of a parent's children set breaks the counts: check says so.
        call("DEL", p + "children:p2");
        assertThat(q.inspector().check().problems()).containsExactly("c: waiting but all its parents have finished");
        call("HSET", p + "meta", "waiting", "5");
        assertThat(q.inspector().check().problems()).contains("waiting: meta counts 5 waiting jobs but the index holds 1");
        call("HSET", p + "meta", "waiting", "1"); // repaired, for the check after the test
        q.cancel("c");
    }

    @Test
    void fanOutReleasesEveryChildOfOneParent() {
        enqueue("root");
        for (int i = 0; i < 50; i++) {
            enqueue("c" + i, "root");
        }
        complete(claim().get("root"));
        assertThat(claim()).hasSize(50);
    }

    @Test
    void aDiamondRunsItsJoinAfterBothBranches() {
        enqueue("a");
        enqueue("b", "a");
        enqueue("c", "a");
        enqueue("d", "b", "c");
        complete(claim().get("a"));
        Map<String, ClaimedJob> branches = claim();
        assertThat(branches).containsOnlyKeys("b", "c");
        complete(branches.get("b"));
        assertThat(state("d")).isEqualTo(JobState.WAITING);
        complete(branches.get("c"));
        assertThat(claim()).containsOnlyKeys("d");
    }

    @Test
    void aDoneParentCountsAtOnceAndAnUnknownOneIsRefused() {
        enqueue("p");
        complete(claim().get("p"));
        enqueue("c", "p");
        assertThat(state("c")).isEqualTo(JobState.SCHEDULED);
        assertThatThrownBy(() -> q.enqueue(Job.builder().id("x").after("p", "P9").build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("unknown parent P9");
        assertThat(q.get("x")).isEmpty();
    }

    @Test
    void aDeadParentMakesItsChildDeadAndTheGrandchildToo() {
        enqueue("p");
        enqueue("c", "p");
        enqueue("g", "c");
        ClaimedJob job = claim().get("p");
        q.leases().fail(job.lease(), "boom", false, Duration.ZERO);
        JobInfo c = q.get("c").orElseThrow();
        assertThat(c.state()).isEqualTo(JobState.DEAD);
        assertThat(c.lastError()).isEqualTo("parent p is dead");
        JobInfo g = q.get("g").orElseThrow();
        assertThat(g.state()).isEqualTo(JobState.DEAD);
        assertThat(g.lastError()).isEqualTo("parent c is dead");
        assertThat(q.inspector().list(JobState.DEAD, 0, 10)).extracting(JobInfo::id).containsExactlyInAnyOrder("p", "c", "g");
        assertThat(call("ZCARD", p + "waiting")).isEqualTo(0L);
        // A child of a parent already dead is dead from the start.
        q.enqueue(Job.builder().id("late").after("p").build());
        assertThat(q.get("late").orElseThrow().lastError()).isEqualTo("parent p is dead");
    }

    @Test
    void ignoreRunsTheChildOnceEveryParentFinishedWhateverItsOutcome() {
        enqueue("ok");
        enqueue("bad");
        q.enqueue(Job.builder().id("cb").after("ok", "bad").onParentDead(OnParentDead.IGNORE).build());
        Map<String, ClaimedJob> parents = claim();
        q.leases().fail(parents.get("bad").lease(), "boom", false, Duration.ZERO);
        assertThat(state("cb")).isEqualTo(JobState.WAITING);
        complete(parents.get("ok"));
        assertThat(claim()).containsOnlyKeys("cb");
    }

    @Test
    void cancellingAParentEndsItsChildAsADeadParentDoes() {
        enqueue("p");
        enqueue("c", "p");
        assertThat(q.cancel("p").status()).isEqualTo(ChangeResult.Status.CHANGED);
        assertThat(q.get("c").orElseThrow().lastError()).isEqualTo("parent p is dead");
    }

    @Test
    void cancellingOrDeletingAWaitingChildRemovesItsLinks() {
        enqueue("p1");
        enqueue("p2");
        enqueue("c", "p1", "p2");
        enqueue("d", "p1");
        assertThat(q.cancel("c").status()).isEqualTo(ChangeResult.Status.CHANGED);
        assertThat(q.inspector().delete("d").status()).isEqualTo(ChangeResult.Status.CHANGED);
        assertThat(q.get("c")).isEmpty();
        assertThat((List<?>) call("KEYS", p + "children:*")).isEmpty();
        assertThat(call("EXISTS", p + "deps")).isEqualTo(0L);
        assertThat(call("ZCARD", p + "waiting")).isEqualTo(0L);
        // The parents finish as usual, and a new job of the same id is not counted as their child.
        enqueue("c");
        Map<String, ClaimedJob> all = claim();
        assertThat(all).containsOnlyKeys("p1", "p2", "c");
        all.values().forEach(this::complete);
    }

    @Test
    void aParentUnderALeaseOverlayStillReleasesItsChild() {
        String big = "x".repeat(400); // leased by an overlay (record.lua)
        q.enqueue(Job.builder().id("p").payload(big).build());
        ClaimedJob leased = claim().get("p");
        enqueue("c", "p");
        complete(leased);
        assertThat(claim()).containsOnlyKeys("c");
    }

    @Test
    void concurrentCompletionsReleaseTheChildOnce() throws Exception {
        int n = 200;
        List<String> parents = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            parents.add("p" + i);
            enqueue("p" + i);
        }
        q.enqueue(Job.builder().id("c").after(parents).build());
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<?>> workers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            workers.add(pool.submit(() -> {
                int idle = 0;
                while (idle < 50 && !runs.containsKey("c")) {
                    List<ClaimedJob> got = q.leases().claim(ClaimOptions.of(3, Duration.ofSeconds(30))).jobs();
                    idle = got.isEmpty() ? idle + 1 : 0;
                    for (ClaimedJob j : got) {
                        runs.computeIfAbsent(j.id(), k -> new AtomicInteger()).incrementAndGet();
                        order.add(j.id());
                        complete(j);
                    }
                    if (got.isEmpty()) {
                        Thread.onSpinWait();
                    }
                }
            }));
        }
        for (Future<?> f : workers) {
            f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertThat(runs.get("c")).hasValue(1);
        assertThat(order.indexOf("c")).isEqualTo(n);
        assertThat(runs).hasSize(n + 1).allSatisfy((id, r) -> assertThat(r).hasValue(1));
    }

    @Test
    void aPartitionedQueueRefusesAfterAndNamesWhatIsSupported() {
        JobQueue parted = t.queue(dq, "fp", 4);
        assertThatThrownBy(() -> parted.enqueue(Job.builder().id("c").after("p").build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("after(...) needs a queue without partitions; name them with afterIn(\"fp\", ids)");
    }

    @Test
    void theBuilderRefusesWhatCannotBe() {
        assertThatThrownBy(() -> Job.builder().id("a").after("a").build()).hasMessageContaining("its own parent");
        assertThatThrownBy(() -> Job.builder().after("a", "a").build()).hasMessageContaining("distinct");
        assertThatThrownBy(() -> Job.builder().onParentDead(OnParentDead.IGNORE).build()).hasMessageContaining("without parents");
        String[] many = new String[Bounds.MAX_PARENTS + 1];
        for (int i = 0; i < many.length; i++) {
            many[i] = "p" + i;
        }
        assertThatThrownBy(() -> Job.builder().after(many).build()).hasMessageContaining("at most 1000 parents");
    }
}
