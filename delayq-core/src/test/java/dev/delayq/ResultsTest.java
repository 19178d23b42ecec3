package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.testkit.RedisExtension;
import dev.delayq.testkit.Resp;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Job results (docs/flows.md "Results", lua/includes/results.lua): written by the completion that marks the job done,
 * kept with the done job, seen by its children and the inspector, deleted with the done job.
 */
class ResultsTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final RetryPolicy QUICK = RetryPolicy.builder().maxAttempts(3).base(Duration.ofMillis(10))
            .cap(Duration.ofMillis(20)).build();

    private TestSupport t;
    private DelayQ dq;
    private JobQueue q;
    private Resp raw;
    private String p;
    private final List<Worker> workers = new ArrayList<>();

    @BeforeEach
    void open() {
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
        dq = t.client();
        q = t.queue(dq, "r");
        raw = REDIS.server().connect();
        p = REDIS.prefix() + ":{r}:";
    }

    @AfterEach
    void close() throws IOException {
        workers.forEach(Worker::close);
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

    private void start(Worker.Builder b) {
        Worker w = b.retryPolicy(QUICK).build();
        workers.add(w);
        w.start();
    }

    private void enqueue(String id, String name, String... parents) {
        Job.Builder b = Job.builder().id(id).name(name).payload("of " + id);
        if (parents.length > 0) {
            b.after(parents);
        }
        assertThat(q.enqueue(b.build()).created()).isTrue();
    }

    private JobInfo awaitState(String id, JobState state) {
        Awaitility.await().atMost(WAIT).until(() -> q.get(id).map(JobInfo::state).orElse(null) == state);
        return q.get(id).orElseThrow();
    }

    @Test
    void aChildSeesTheResultsOfItsThreeParents() {
        Map<String, Map<String, byte[]>> seen = new ConcurrentHashMap<>();
        start(Worker.builder(q)
                .handleReturning("part", PayloadCodec.utf8(), ctx -> "rows of " + ctx.id())
                .handle("sum", ctx -> {
                    seen.put(ctx.id(), ctx.parentResults());
                    ctx.result("summed " + ctx.parentResults().size());
                }));
        enqueue("p1", "part");
        enqueue("p2", "part");
        enqueue("p3", "part");
        enqueue("c", "sum", "p1", "p2", "p3");
        awaitState("c", JobState.DONE);
        Map<String, byte[]> got = seen.get("c");
        assertThat(got.keySet()).containsExactly("p1", "p2", "p3");
        got.forEach((id, v) -> assertThat(new String(v, StandardCharsets.UTF_8)).isEqualTo("rows of " + id));
        JobInfo c = q.get("c").orElseThrow();
        assertThat(new String(c.result(), StandardCharsets.UTF_8)).isEqualTo("summed 3");
        assertThat(new String(q.get("p2").orElseThrow().result(), StandardCharsets.UTF_8)).isEqualTo("rows of p2");
        // The results hash holds each job's result and the child's parent list, nothing else.
        assertThat(call("HLEN", p + "results")).isEqualTo(5L);
    }

    @Test
    void aJobWithoutParentsSeesNoneAndAJobWithoutResultWritesNothing() {
        Map<String, Map<String, byte[]>> seen = new ConcurrentHashMap<>();
        start(Worker.builder(q, ctx -> seen.put(ctx.id(), ctx.parentResults())));
        enqueue("a", "plain");
        awaitState("a", JobState.DONE);
        assertThat(seen.get("a")).isEmpty();
        assertThat(q.get("a").orElseThrow().result()).isNull();
        assertThat(call("EXISTS", p + "results")).isEqualTo(0L);
        assertThat(call("HEXISTS", p + "meta", "results")).isEqualTo(0L);
    }

    @Test
    void aBinaryResultIsKeptByteForByte() {
        byte[] bin = new byte[256];
        for (int i = 0; i < bin.length; i++) {
            bin[i] = (byte) i;
        }
        start(Worker.builder(q, ctx -> ctx.result(bin)));
        enqueue("b", "bin");
        assertThat(awaitState("b", JobState.DONE).result()).isEqualTo(bin);
    }

    @Test
    void aResultOverTheLimitFailsTheAttemptWithTheSize() {
        start(Worker.builder(q, ctx -> ctx.result(new byte[Bounds.MAX_RESULT_BYTES + 1])));
        enqueue("big", "big");
        JobInfo dead = awaitState("big", JobState.DEAD);
        assertThat(dead.lastError()).contains("IllegalArgumentException")
                .contains("is 65537 bytes: at most 65536 bytes (64 KiB) are kept");
        assertThat(call("EXISTS", p + "results")).isEqualTo(0L);
    }

    @Test
    void theLeaseApiRefusesAResultOverTheLimitAndKeepsOneAtTheLimit() {
        enqueue("l1", "x");
        enqueue("l2", "x");
        List<ClaimedJob> jobs = q.leases().claim(ClaimOptions.of(2, Duration.ofSeconds(30))).jobs();
        assertThatThrownBy(() -> q.leases().complete(jobs.get(0).lease(), new byte[Bounds.MAX_RESULT_BYTES + 1]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("result of job '" + jobs.get(0).id() + "' is 65537 bytes: at most 65536 bytes (64 KiB) are kept");
        assertThat(q.get(jobs.get(0).id()).orElseThrow().state()).isEqualTo(JobState.PROCESSING);
        for (ClaimedJob j : jobs) {
            assertThat(q.leases().complete(j.lease(), new byte[Bounds.MAX_RESULT_BYTES])).isEqualTo(Ack.OK);
            assertThat(q.get(j.id()).orElseThrow().result()).hasSize(Bounds.MAX_RESULT_BYTES);
        }
        // A replayed completion changes nothing.
        assertThat(q.leases().complete(jobs.get(0).lease(), new byte[] {1})).isEqualTo(Ack.ALREADY_APPLIED);
        assertThat(q.get(jobs.get(0).id()).orElseThrow().result()).hasSize(Bounds.MAX_RESULT_BYTES);
    }

    @Test
    void theResultOfTheAttemptThatCompletesIsTheOneKept() {
        AtomicInteger attempts = new AtomicInteger();
        start(Worker.builder(q, ctx -> {
            ctx.result("attempt " + ctx.attempt());
            ctx.result("last of attempt " + ctx.attempt()); // the last call wins
            if (attempts.incrementAndGet() < 2) {
                throw new IllegalStateException("first attempt fails");
            }
        }));
        enqueue("retried", "x");
        JobInfo done = awaitState("retried", JobState.DONE);
        assertThat(done.attempt()).isEqualTo(2);
        assertThat(new String(done.result(), StandardCharsets.UTF_8)).isEqualTo("last of attempt 2");
    }

    @Test
    void deleteAndPurgeTakeTheResultsAndParentListsWithTheJobs() {
        start(Worker.builder(q).handleReturning("part", PayloadCodec.utf8(), ctx -> "r-" + ctx.id())
                .handleReturning("child", PayloadCodec.utf8(), ctx -> "c-" + ctx.id()));
        enqueue("p1", "part");
        enqueue("p2", "part");
        enqueue("c", "child", "p1", "p2");
        awaitState("c", JobState.DONE);
        assertThat(call("HLEN", p + "results")).isEqualTo(4L);
        assertThat(q.inspector().delete("p1").changed()).isTrue();
        assertThat(call("HEXISTS", p + "results", "p1")).isEqualTo(0L);
        assertThat(q.inspector().delete("c").changed()).isTrue();
        assertThat(call("HLEN", p + "results")).isEqualTo(1L);
        q.inspector().purge(Duration.ZERO);
        assertThat(q.get("p2")).isEmpty();
        assertThat(call("EXISTS", p + "results")).isEqualTo(0L);
    }

    @Test
    void aCancelledChildTakesItsParentListWithIt() {
        enqueue("p", "x");
        enqueue("c", "x", "p");
        assertThat(call("HEXISTS", p + "results", "\0c")).isEqualTo(1L);
        assertThat(q.cancel("c").changed()).isTrue();
        assertThat(call("EXISTS", p + "results")).isEqualTo(0L);
    }

    @Test
    void aParentNoLongerKeptIsAbsentFromItsChildsResults() {
        List<String> seen = new CopyOnWriteArrayList<>();
        CountDownLatch deleted = new CountDownLatch(1);
        start(Worker.builder(q).handleReturning("part", PayloadCodec.utf8(), ctx -> "r-" + ctx.id())
                .handle("child", ctx -> {
                    assertThat(deleted.await(30, TimeUnit.SECONDS)).isTrue();
                    seen.addAll(ctx.parentResults().keySet());
                    seen.add("ran");
                }));
        enqueue("p1", "part");
        enqueue("p2", "part");
        enqueue("c", "child", "p1", "p2");
        awaitState("c", JobState.PROCESSING);
        assertThat(q.inspector().delete("p1").changed()).isTrue();
        deleted.countDown();
        awaitState("c", JobState.DONE);
        assertThat(seen).containsExactly("p2", "ran");
    }

    @Test
    void withoutDoneRetentionNoResultIsKeptAndTheParentListGoesWithTheChild() {
        DelayQ none = t.client(b -> b.doneRetention(Duration.ZERO));
        JobQueue nq = none.queue("r");
        start(Worker.builder(nq, ctx -> ctx.result("lost")));
        enqueue("p1", "x");
        enqueue("c", "x", "p1");
        Awaitility.await().atMost(WAIT).until(() -> q.inspector().stats().totals().get("completed") == 2);
        assertThat(call("EXISTS", p + "results")).isEqualTo(0L);
    }
}
