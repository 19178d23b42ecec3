package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Parents in another queue (docs/flows.md, lua/includes/remote.lua): linked on the parent's key set first, released by
 * a notice the parent's end writes into its own key set and a worker of the parent's queue applies to the child's,
 * exactly once. Subclasses run it on a single node and on a cluster, where the two queues are in different slots.
 */
abstract class RemoteParentsContract {
    static final Duration WAIT = Duration.ofSeconds(30);

    TestSupport t;
    DelayQ dq;
    /** The children's queue. */
    JobQueue orders;
    /** The parents' queue. */
    JobQueue payments;
    final List<Worker> workers = new CopyOnWriteArrayList<>();

    abstract Target target();

    abstract String prefix();

    @BeforeEach
    void open() {
        t = new TestSupport(target(), prefix());
        dq = t.client();
        orders = t.queue(dq, "orders");
        payments = t.queue(dq, "payments");
    }

    @AfterEach
    void close() {
        workers.forEach(Worker::close);
        t.close();
    }

    /** The parents' queue's outbox of notices (the children prefix itself: lua/includes/deps.lua). */
    String outbox(String queue) {
        return prefix() + ":{" + queue + "}:children:";
    }

    long notices(String queue) {
        return (Long) target().call("ZCARD", outbox(queue));
    }

    static String text(Object reply) {
        return reply instanceof byte[] b ? new String(b, java.nio.charset.StandardCharsets.UTF_8) : (String) reply;
    }

    void enqueue(JobQueue q, String id) {
        assertThat(q.enqueue(Job.builder().id(id).payload("of " + id).build()).created()).isTrue();
    }

    JobState state(JobQueue q, String id) {
        return q.get(id).orElseThrow().state();
    }

    /** Claims and completes every due job of {@code q} (one claim); returns their ids. */
    List<String> completeDue(JobQueue q) {
        List<String> ids = new ArrayList<>();
        for (ClaimedJob j : q.leases().claim(ClaimOptions.of(1000, Duration.ofSeconds(30))).jobs()) {
            assertThat(q.leases().complete(j.lease())).isEqualTo(Ack.OK);
            ids.add(j.id());
        }
        return ids;
    }

    /** A worker of {@code q} that counts the runs of each job (and so relays {@code q}'s notices). */
    Worker worker(JobQueue q, Map<String, AtomicInteger> runs) {
        Worker w = Worker.builder(q, job -> {
            runs.computeIfAbsent(job.id(), k -> new AtomicInteger()).incrementAndGet();
        }).build();
        workers.add(w);
        return w.start();
    }

    @Test
    void aChildWaitsForParentsInTwoQueuesAndIsReleasedOnceByTheRelay() {
        enqueue(orders, "local");
        enqueue(payments, "p7");
        assertThat(orders.enqueue(Job.builder().id("ship").after("local").afterIn("payments", "p7").build()).created())
                .isTrue();
        assertThat(state(orders, "ship")).isEqualTo(JobState.WAITING);
        FlowLinks links = orders.inspector().links("ship").orElseThrow();
        assertThat(links.pendingParents()).isEqualTo(2);
        assertThat(payments.inspector().links("p7").orElseThrow().waitingChildren()).isEqualTo(1);
        assertThat(orders.inspector().check().problems()).isEmpty();

        assertThat(completeDue(orders)).containsExactly("local");
        // The remote parent ends with no worker of its queue running: its notice waits in its own key set.
        assertThat(completeDue(payments)).containsExactly("p7");
        assertThat(notices("payments")).isEqualTo(1);
        assertThat(state(orders, "ship")).isEqualTo(JobState.WAITING);
        assertThat(orders.inspector().check().problems()).isEmpty();

        // Any worker of the parents' queue relays it (as one started after the worker that completed p7 was killed).
        worker(payments, new ConcurrentHashMap<>());
        Awaitility.await().atMost(WAIT).until(() -> state(orders, "ship") == JobState.SCHEDULED);
        Awaitility.await().atMost(WAIT).until(() -> notices("payments") == 0);
        assertThat(orders.inspector().links("ship").orElseThrow().pendingParents()).isEqualTo(-1);
        assertThat(orders.inspector().stats().waiting()).isZero();
        assertThat(completeDue(orders)).containsExactly("ship");
        assertThat(orders.inspector().check().problems()).isEmpty();
        assertThat(payments.inspector().check().problems()).isEmpty();
    }

    @Test
    void aChildReadsTheResultsOfItsParentsInItsOwnAndInAnotherQueue() {
        enqueue(orders, "local");
        enqueue(payments, "p7");
        enqueue(payments, "p8"); // completes without a result
        orders.enqueue(Job.builder().id("ship").after("local").afterIn("payments", "p7", "p8").build());
        ClaimedJob local = orders.leases().claim(ClaimOptions.of(1, Duration.ofSeconds(30))).jobs().get(0);
        assertThat(orders.leases().complete(local.lease(), "packed".getBytes(StandardCharsets.UTF_8))).isEqualTo(Ack.OK);
        for (ClaimedJob j : payments.leases().claim(ClaimOptions.of(10, Duration.ofSeconds(30))).jobs()) {
            byte[] result = j.id().equals("p7") ? new byte[] {0, 1, (byte) 0xff} : null;
            assertThat(payments.leases().complete(j.lease(), result)).isEqualTo(Ack.OK);
        }
        Map<String, Map<String, byte[]>> seen = new ConcurrentHashMap<>();
        workers.add(Worker.builder(orders, job -> seen.put(job.id(), job.parentResults())).build().start());
        worker(payments, new ConcurrentHashMap<>()); // relays the parents' notices
        Awaitility.await().atMost(WAIT).until(() -> seen.containsKey("ship"));
        // By the id for a parent of its own queue, by QUEUE/ID for one in another; a parent without a result: absent.
        assertThat(seen.get("ship")).containsOnlyKeys("local", "payments/p7");
        assertThat(seen.get("ship").get("local")).asString(StandardCharsets.UTF_8).isEqualTo("packed");
        assertThat(seen.get("ship").get("payments/p7")).containsExactly(0, 1, 0xff);
    }

    @Test
    void aNoticeAppliedTwiceCountsOnce() {
        enqueue(payments, "a");
        enqueue(payments, "b");
        orders.enqueue(Job.builder().id("c").afterIn("payments", "a", "b").build());
        List<String> done = completeDue(payments);
        assertThat(done).containsExactlyInAnyOrder("a", "b");
        @SuppressWarnings("unchecked")
        List<Object> raw = (List<Object>) target().call("ZRANGE", outbox("payments"), "0", "-1");
        assertThat(raw).hasSize(2);
        String first = text(raw.get(0));
        // The notice of a, applied, then written again (its acknowledgement lost in a failover): b is still pending.
        target().call("ZREM", outbox("payments"), text(raw.get(1)));
        worker(payments, new ConcurrentHashMap<>());
        Awaitility.await().atMost(WAIT).until(() -> notices("payments") == 0);
        assertThat(orders.inspector().links("c").orElseThrow().pendingParents()).isEqualTo(1);
        target().call("ZADD", outbox("payments"), "0", first);
        target().call("PUBLISH", prefix() + ":{payments}:wake", "n"); // as the script that writes a notice does
        Awaitility.await().atMost(WAIT).until(() -> notices("payments") == 0);
        assertThat(state(orders, "c")).isEqualTo(JobState.WAITING);
        assertThat(orders.inspector().links("c").orElseThrow().pendingParents()).isEqualTo(1);
        assertThat(orders.inspector().links("c").orElseThrow().doneParents()).isEqualTo(1);
    }

    @Test
    void concurrentCompletionsOfRemoteParentsReleaseTheChildOnce() {
        JobQueue refunds = t.queue(dq, "refunds");
        List<String> pay = new ArrayList<>();
        List<String> ref = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            pay.add("p" + i);
            ref.add("r" + i);
            enqueue(payments, "p" + i);
            enqueue(refunds, "r" + i);
        }
        orders.enqueue(Job.builder().id("summary").afterIn("payments", pay.toArray(new String[0]))
                .afterIn("refunds", ref.toArray(new String[0])).build());
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        for (int i = 0; i < 2; i++) {
            worker(payments, runs);
            worker(refunds, runs);
            worker(orders, runs);
        }
        Awaitility.await().atMost(WAIT).until(() -> runs.containsKey("summary") && orders.inspector().stats().done() == 1);
        Awaitility.await().atMost(WAIT).until(() -> notices("payments") == 0 && notices("refunds") == 0);
        assertThat(runs.get("summary").get()).isEqualTo(1);
        assertThat(runs).hasSize(41);
        assertThat(orders.inspector().stats().done()).isEqualTo(1);
    }

    @Test
    void aDoneRemoteParentCountsAtOnceAndADeadOneMakesTheChildDead() {
        enqueue(payments, "paid");
        enqueue(payments, "bounced");
        assertThat(completeDue(payments)).hasSize(2);
        orders.enqueue(Job.builder().id("now").afterIn("payments", "paid").build());
        assertThat(state(orders, "now")).isEqualTo(JobState.SCHEDULED);

        enqueue(payments, "fails");
        orders.enqueue(Job.builder().id("doomed").afterIn("payments", "fails").build());
        orders.enqueue(Job.builder().id("anyway").afterIn("payments", "fails").onParentDead(OnParentDead.IGNORE).build());
        ClaimedJob f = payments.leases().claim(ClaimOptions.of(1, Duration.ofSeconds(30))).jobs().get(0);
        payments.leases().fail(f.lease(), "no", false, Duration.ZERO);
        assertThat(state(payments, "fails")).isEqualTo(JobState.DEAD);
        worker(payments, new ConcurrentHashMap<>());
        Awaitility.await().atMost(WAIT).until(() -> state(orders, "doomed") == JobState.DEAD);
        assertThat(orders.get("doomed").orElseThrow().lastError()).isEqualTo("parent fails is dead");
        Awaitility.await().atMost(WAIT).until(() -> state(orders, "anyway") == JobState.SCHEDULED);

        // A parent already dead at the child's enqueue: dead from the start.
        orders.enqueue(Job.builder().id("late").afterIn("payments", "fails").build());
        assertThat(state(orders, "late")).isEqualTo(JobState.DEAD);
        assertThat(orders.get("late").orElseThrow().lastError()).isEqualTo("parent fails is dead");
    }

    @Test
    void aCancelledRemoteParentMakesItsChildDead() {
        enqueue(payments, "p1");
        orders.enqueue(Job.builder().id("c").afterIn("payments", "p1").build());
        assertThat(payments.cancel("p1").changed()).isTrue();
        assertThat(notices("payments")).isEqualTo(1);
        worker(payments, new ConcurrentHashMap<>());
        Awaitility.await().atMost(WAIT).until(() -> state(orders, "c") == JobState.DEAD);
        assertThat(orders.get("c").orElseThrow().lastError()).isEqualTo("parent p1 is dead");
        assertThat(orders.inspector().stats().waiting()).isZero();
        assertThat(orders.inspector().check().problems()).isEmpty();
    }

    @Test
    void partitionedQueuesTakeParentsInOtherPartitionsAndQueuesThroughTheSameRelay() {
        JobQueue parts = t.queue(dq, "porders", 3);
        JobQueue pay = t.queue(dq, "ppay", 4);
        for (int i = 0; i < 12; i++) {
            enqueue(pay, "p" + i);
            enqueue(parts, "l" + i);
        }
        assertThatThrownBy(() -> parts.enqueue(Job.builder().id("x").after("l0").build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("afterIn(\"porders\", ids)");
        for (int i = 0; i < 12; i++) {
            // each child waits for a parent of another queue's partition and for one of its own queue, wherever it is
            parts.enqueue(Job.builder().id("c" + i).afterIn("ppay", "p" + i).afterIn("porders", "l" + ((i + 5) % 12))
                    .build());
            assertThat(state(parts, "c" + i)).isEqualTo(JobState.WAITING);
        }
        assertThatThrownBy(() -> parts.enqueue(Job.builder().id("y").afterIn("ppay", "P9").build()))
                .hasMessageContaining("unknown parent P9 (in queue ppay)");
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        worker(pay, runs);
        worker(parts, runs);
        Awaitility.await().atMost(WAIT).until(() -> parts.inspector().stats().done() == 24);
        for (int i = 0; i < 12; i++) {
            assertThat(runs.get("c" + i).get()).as("c%d runs", i).isEqualTo(1);
        }
        assertThat(parts.inspector().stats().waiting()).isZero();
        assertThat(parts.inspector().check().problems()).isEmpty();
    }

    @Test
    void anUnknownRemoteParentIsRefusedAndNothingStays() {
        enqueue(payments, "p1");
        JobQueue refunds = t.queue(dq, "refunds");
        assertThatThrownBy(() -> orders.enqueue(Job.builder().id("c").afterIn("payments", "p1")
                .afterIn("refunds", "P9").build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown parent P9");
        assertThat(orders.get("c")).isEmpty();
        assertThat(payments.inspector().links("p1").orElseThrow().waitingChildren()).isZero();
        assertThat(refunds.inspector().stats().scheduled()).isZero();
    }

    @Test
    void aNoticeForAChildThatDoesNotExistIsKeptAndTriedAgainLater() {
        enqueue(payments, "p");
        orders.enqueue(Job.builder().id("gone").afterIn("payments", "p").build());
        assertThat(orders.inspector().delete("gone").changed()).isTrue(); // as a child never written: its link stays on p
        assertThat(completeDue(payments)).containsExactly("p");
        String notice = text(((List<?>) target().call("ZRANGE", outbox("payments"), "0", "-1")).get(0));
        double written = Double.parseDouble(text(target().call("ZSCORE", outbox("payments"), notice)));
        worker(payments, new ConcurrentHashMap<>());
        // Tried, found no child, put back for later (not dropped: the child may still be written).
        Awaitility.await().atMost(WAIT).until(() -> Double.parseDouble(text(target().call("ZSCORE", outbox("payments"),
                notice))) > written + 1000);
        assertThat(notices("payments")).isEqualTo(1);
        assertThat(orders.get("gone")).isEmpty();
    }

    @Test
    void aCancelledWaitingChildIsNotRevivedByItsParentsNotice() {
        enqueue(payments, "p");
        orders.enqueue(Job.builder().id("c").afterIn("payments", "p").build());
        assertThat(orders.cancel("c").changed()).isTrue();
        assertThat(orders.inspector().check().problems()).isEmpty();
        // Enqueued again under the same id, with a new link: the old link's notice must not count for it.
        enqueue(payments, "q");
        orders.enqueue(Job.builder().id("c").afterIn("payments", "q").build());
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        worker(payments, runs);
        Awaitility.await().atMost(WAIT).until(() -> runs.containsKey("p") && runs.containsKey("q"));
        Awaitility.await().atMost(WAIT).until(() -> state(orders, "c") == JobState.SCHEDULED);
        assertThat(orders.inspector().stats().scheduled()).isEqualTo(1);
    }
}
