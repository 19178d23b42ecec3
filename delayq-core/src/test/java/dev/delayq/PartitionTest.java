package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.internal.queue.RedisQueue;
import dev.delayq.testkit.RedisCluster;
import dev.delayq.testkit.RedisClusterExtension;
import dev.delayq.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What only partitioned queues do: routing, spreading over masters, and a count that cannot change. */
class PartitionTest {
    @RegisterExtension
    static final RedisClusterExtension CLUSTER = new RedisClusterExtension();

    private TestSupport t;
    private DelayQ dq;

    @BeforeEach
    void open() {
        t = new TestSupport(Target.of(CLUSTER.cluster()), CLUSTER.prefix());
        dq = t.client();
    }

    @AfterEach
    void close() {
        t.close();
    }

    @Test
    void jobsSpreadOverThePartitionsAndThePartitionsOverTheMasters() {
        JobQueue q = t.queue(dq, "hot", 6);
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            jobs.add(Job.builder().id("order-" + i).delay(Duration.ofHours(1)).build());
        }
        q.enqueueAll(jobs);
        RedisQueue pq = RedisQueue.of(q);
        Set<Integer> masters = new HashSet<>();
        RedisCluster cluster = CLUSTER.cluster();
        for (int p = 0; p < 6; p++) {
            long count = pq.partition(p).inspector().stats().scheduled();
            assertThat(count).as("jobs in partition %d", p).isBetween(50L, 150L);
            String key = t.prefix() + ":{hot#" + p + "}:due";
            RedisServer master = cluster.masterOf(cluster.slotOf(key));
            masters.add(master.port());
            assertThat(master.call("ZCARD", key)).isEqualTo(count);
        }
        assertThat(masters).as("masters holding the six partitions").hasSizeGreaterThanOrEqualTo(2);
        assertThat(q.inspector().stats().scheduled()).isEqualTo(600);
        assertThat(q.get("order-42")).isPresent();
        assertThat(q.cancel("order-42").changed()).isTrue();
        assertThat(q.inspector().retryAllDead()).isZero();
        for (int i = 0; i < 600; i++) {
            if (i != 42) {
                q.cancel("order-" + i);
            }
        }
    }

    @Test
    void anIdIsOneJobAndADedupeKeyOneHolderQueueWide() {
        JobQueue q = t.queue(dq, "dd", 4);
        RedisQueue pq = RedisQueue.of(q);
        int home = pq.partitionOf("order-9:charge");
        // Jobs without ids: each is generated into the dedupe key's partition; the key admits one.
        List<EnqueueResult> results = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            results.add(q.enqueue(Job.builder().payload("charge " + i).dedupe("order-9:charge", Duration.ofHours(1)).build()));
        }
        assertThat(results).filteredOn(EnqueueResult::created).hasSize(1);
        String owner = results.get(0).id();
        assertThat(results).allMatch(r -> r.id().equals(owner));
        assertThat(pq.partitionOf(owner)).isEqualTo(home);
        assertThat(pq.partition(home).get(owner)).isPresent();
        assertThat(q.get(owner)).isPresent();

        // A caller's id that lives in another partition than its dedupe key is refused, with the reason.
        String elsewhere = "charge-0";
        for (int n = 1; pq.partitionOf(elsewhere) == home; n++) {
            elsewhere = "charge-" + n;
        }
        String refused = elsewhere;
        assertThatThrownBy(() -> q.enqueue(Job.builder().id(refused).dedupe("order-9:charge", Duration.ofHours(1)).build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("belong to different partitions of queue 'dd'")
                .hasMessageContaining("leave the id out");
        assertThat(q.get(refused)).isEmpty();

        // So the same id can never be two jobs: with or without a dedupe key it lives in its own partition.
        String same = "same-id";
        for (int n = 1; pq.partitionOf(same) != pq.partitionOf("key-a"); n++) {
            same = "same-id-" + n;
        }
        assertThat(q.enqueue(Job.builder().id(same).dedupe("key-a", Duration.ofHours(1)).build()).created()).isTrue();
        assertThat(q.enqueue(Job.builder().id(same).build())).isEqualTo(new EnqueueResult(same, false));
        assertThat(q.cancelByDedupeKey("order-9:charge").id()).isEqualTo(owner);
        assertThat(q.cancel(same).changed()).isTrue();
    }

    @Test
    void theFirstUseRecordsTheCountOneIncludedSoProducersAndWorkersNeverDisagree() {
        // A producer opens the queue without saying how many partitions: 1 is recorded.
        JobQueue plain = t.queue(dq, "first", 0);
        assertThat(RedisQueue.of(plain).partitions()).hasSize(1);
        assertThat(CLUSTER.cluster().masterOf(CLUSTER.cluster().slotOf(t.prefix() + ":{first}:config"))
                .call("HGET", t.prefix() + ":{first}:config", "partitions")).isEqualTo("1");
        // A worker started later asking for 4 is refused instead of claiming from key sets nobody enqueues into.
        assertThatThrownBy(() -> t.client().queue("first", 4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("queue 'first' has 1 partition(s); asked for 4: a queue's partition count cannot change "
                        + "(drain it and use a new queue name)");
        // Jobs found under key sets the recorded count does not cover are reported by check.
        t.target().call("HSET", t.prefix() + ":{first#2}:jobs", "stray", "x");
        assertThat(plain.inspector().check().problems()).containsExactly("{first#2}: jobs under a key set that the recorded partition "
                + "count (1) does not cover: no worker claims them");
        t.target().call("DEL", t.prefix() + ":{first#2}:jobs");
    }

    @Test
    void aPartitionedQueueSplitsItsLimitsSoTheWholeQueueNeverExceedsThem() {
        JobQueue q = t.queue(dq, "limited", 4);
        q.inspector().limits(Limits.rate(10, Duration.ofSeconds(1)).concurrency(6));
        RedisQueue pq = RedisQueue.of(q);
        assertThat(TestSupport.partitionViews(q)).extracting(p -> p.inspector().limits().rateJobs()).containsExactly(3, 3, 2, 2);
        assertThat(TestSupport.partitionViews(q)).extracting(p -> p.inspector().limits().concurrency()).containsExactly(2, 2, 1, 1);
        assertThat(q.inspector().limits()).isEqualTo(Limits.rate(10, Duration.ofSeconds(1)).concurrency(6));
        assertThatThrownBy(() -> q.inspector().limits(Limits.ofConcurrency(3))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a rate or concurrency limit must be at least 4");
        q.inspector().limits(Limits.none());
    }

    @Test
    void aCorruptRecordedCountIsAClearError() {
        t.target().call("HSET", t.prefix() + ":{bent}:config", "partitions", "four");
        assertThatThrownBy(() -> dq.queue("bent")).isInstanceOf(DelayQException.class)
                .hasMessageContaining("queue 'bent': the partition count recorded in Redis")
                .hasMessageContaining("is 'four', not a number from 1 to 256");
        t.target().call("DEL", t.prefix() + ":{bent}:config");
    }

    @Test
    void thePartitionCountIsRecordedInRedisAndCannotChange() {
        JobQueue q = t.queue(dq, "fixed", 3);
        assertThat(RedisQueue.of(q).partitions()).hasSize(3);
        DelayQ other = t.client();
        JobQueue asRecorded = other.queue("fixed");
        assertThat(RedisQueue.of(asRecorded).partitions()).hasSize(3);
        assertThatThrownBy(() -> t.client().queue("fixed", 4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("queue 'fixed' has 3 partition(s); asked for 4: a queue's partition count cannot change "
                        + "(drain it and use a new queue name)");
        assertThatThrownBy(() -> dq.queue("other", 257)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("partitions is 257: it must be between 0 and 256");
        assertThat(RedisQueue.of(dq.queue("plain")).partitions()).hasSize(1);
    }

    @Test
    void aWorkerSleepsUntilTheEarliestDueTimeOfAllPartitions() {
        JobQueue q = t.queue(dq, "sleepy", 3);
        q.enqueue(Job.builder().id("in-an-hour").delay(Duration.ofHours(1)).build());
        List<String> ran = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (Worker w = Worker.builder(q, job -> ran.add(job.id())).maxIdleSleep(Duration.ofHours(2)).build().start()) {
            // Whatever partition each lands in, the worker wakes for each at its time.
            for (int i = 0; i < 9; i++) {
                q.enqueue(Job.builder().id("soon-" + i).delay(Duration.ofMillis(100 + 50L * i)).build());
            }
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> ran.size() == 9);
            assertThat(w.isRunning()).isTrue();
        }
        assertThat(ran).doesNotContain("in-an-hour");
        q.cancel("in-an-hour");
    }
}
