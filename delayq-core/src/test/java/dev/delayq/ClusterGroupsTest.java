package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.testkit.RedisClusterExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Groups on a partitioned queue on a three-master Redis Cluster: each partition takes turns between the groups it holds
 * (the fairness bound per partition), every key stays under the partition's hash tag, group limits are shared out.
 */
class ClusterGroupsTest {
    @RegisterExtension
    static final RedisClusterExtension CLUSTER = new RedisClusterExtension();

    private TestSupport t;
    private JobQueue q;

    @BeforeEach
    void open() {
        t = new TestSupport(Target.of(CLUSTER.cluster()), CLUSTER.prefix());
        q = t.queue(t.client(), "cgroups", 3);
    }

    @AfterEach
    void close() {
        t.close();
    }

    @Test
    void eachPartitionTakesTurnsBetweenItsGroups() {
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            jobs.add(Job.builder().id(String.format("big%03d", i)).group("big").build());
        }
        for (int i = 0; i < 15; i++) {
            jobs.add(Job.builder().id(String.format("s%02d", i)).group("small-" + (i % 5)).build());
        }
        q.enqueueAll(jobs);
        List<JobQueue> views = TestSupport.partitionViews(q);
        for (int p = 0; p < views.size(); p++) {
            JobQueue part = views.get(p);
            // in one partition: the small groups it holds each get a job before big's second one
            Set<String> smallIn = new HashSet<>();
            long smallJobs = 0;
            for (Job j : jobs) {
                if (!j.group().equals("big") && TestSupport.partitionOf(q, j.id()) == p) {
                    smallIn.add(j.group());
                    smallJobs++;
                }
            }
            List<String> lanes = new ArrayList<>();
            while (true) {
                ClaimBatch b = part.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1)));
                if (b.jobs().isEmpty()) {
                    break;
                }
                lanes.add(b.jobs().get(0).group());
                part.leases().complete(b.jobs().get(0).lease());
            }
            int lastSmall = 0;
            for (int i = 0; i < lanes.size(); i++) {
                if (!lanes.get(i).equals("big")) {
                    lastSmall = i + 1;
                }
            }
            // every small job started within (its group's jobs) turns of (the partition's groups) each
            assertThat(lastSmall).isLessThanOrEqualTo((int) (smallJobs * (smallIn.size() + 1)));
            assertThat(new HashSet<>(lanes.subList(0, Math.min(lanes.size(), smallIn.size() + 1))))
                    .hasSize(Math.min(lanes.size(), smallIn.size() + 1));
        }
        assertThat(q.inspector().stats().scheduled()).isZero();
        assertThat(q.inspector().stats().groups()).isZero();
    }

    @Test
    void groupLimitsAreSharedOutOverThePartitionsAndHold() {
        assertThatThrownBy(() -> q.inspector().groupLimits(Limits.ofConcurrency(2)))
                .hasMessageContaining("3 partitions").hasMessageContaining("at least 3");
        q.inspector().groupLimits(Limits.ofConcurrency(3));
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            jobs.add(Job.builder().id("t" + i).group("tenant").build());
        }
        q.enqueueAll(jobs);
        List<ClaimedJob> held = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            held.addAll(q.leases().claim(ClaimOptions.of(10, Duration.ofMinutes(1))).jobs());
        }
        assertThat(held).hasSize(3);
        GroupStats s = q.inspector().groups(5);
        assertThat(s.limits().concurrency()).isEqualTo(3);
        assertThat(s.top()).singleElement().satisfies(g -> {
            assertThat(g.group()).isEqualTo("tenant");
            assertThat(g.running()).isEqualTo(3);
            assertThat(g.scheduled()).isEqualTo(57);
        });
        held.forEach(j -> q.leases().complete(j.lease()));
        assertThat(q.leases().claim(ClaimOptions.of(10, Duration.ofMinutes(1))).jobs()).isNotEmpty();
    }
}
