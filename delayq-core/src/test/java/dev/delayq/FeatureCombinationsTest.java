package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Flows, groups and debounce together, as far as they combine in this version (docs/groups.md): a grouped job may be
 * a parent; a job with parents or in debounce mode cannot have a group yet (refused at the edge, and by enqueue.lua for
 * a client that sends it anyway); a debounce enqueue never replaces a grouped holder (the new job is created beside it).
 */
class FeatureCombinationsTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private TestSupport t;
    private JobQueue q;

    @BeforeEach
    void open() {
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
        q = t.queue(t.client(), "combined");
    }

    @AfterEach
    void close() {
        t.close();
    }

    private ClaimedJob claimOne() {
        List<ClaimedJob> jobs = q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1))).jobs();
        assertThat(jobs).hasSize(1);
        return jobs.get(0);
    }

    @Test
    void aGroupedParentReleasesItsChildWhenItCompletes() {
        q.enqueue(Job.builder().id("parent").group("tenant-1").payload("p").build());
        q.enqueue(Job.builder().id("child").after("parent").payload("c").build());
        assertThat(q.get("child").orElseThrow().state()).isEqualTo(JobState.WAITING);

        ClaimedJob parent = claimOne();
        assertThat(parent.id()).isEqualTo("parent");
        assertThat(parent.group()).isEqualTo("tenant-1");
        q.leases().complete(parent.lease());

        assertThat(q.get("child").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
        ClaimedJob child = claimOne();
        assertThat(child.id()).isEqualTo("child");
        q.leases().complete(child.lease());
        assertThat(q.inspector().check().clean()).isTrue();
    }

    @Test
    void aGroupedChildWaitsOutsideItsGroupAndItsReleaseTakesItsTurnInIt() {
        q.enqueue(Job.builder().id("parent").payload("p").build());
        q.enqueue(Job.builder().id("other").group("tenant-8").payload("o").delay(Duration.ofHours(1)).build());
        q.enqueue(Job.builder().id("child").after("parent").group("tenant-9").payload("c").build());
        assertThat(q.get("child").orElseThrow().state()).isEqualTo(JobState.WAITING);
        assertThat(q.get("child").orElseThrow().group()).isEqualTo("tenant-9");
        assertThat(q.inspector().stats().groups()).as("a waiting child is in no group's lane yet").isEqualTo(1);

        ClaimedJob parent = claimOne();
        assertThat(parent.id()).isEqualTo("parent");
        q.leases().complete(parent.lease());

        assertThat(q.get("child").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
        assertThat(q.inspector().stats().groups()).isEqualTo(2);
        assertThat(q.inspector().check().clean()).as("released into its lane, its group in the turns").isTrue();
        ClaimedJob child = claimOne();
        assertThat(child.id()).isEqualTo("child");
        assertThat(child.group()).isEqualTo("tenant-9");
        q.leases().complete(child.lease());

        // A dead parent: the grouped child is dead, and a retry puts it back in its group.
        q.enqueue(Job.builder().id("doomed").payload("d").build());
        q.enqueue(Job.builder().id("orphan").after("doomed").group("tenant-9").payload("x").build());
        q.leases().fail(claimOne().lease(), "fatal", false, Duration.ZERO);
        assertThat(q.get("orphan").orElseThrow().state()).isEqualTo(JobState.DEAD);
        assertThat(q.inspector().retryDead("orphan").changed()).isTrue();
        ClaimedJob retried = claimOne();
        assertThat(retried.id()).isEqualTo("orphan");
        assertThat(retried.group()).isEqualTo("tenant-9");
        q.leases().complete(retried.lease());
        assertThat(q.inspector().check().clean()).isTrue();
    }

    @Test
    void aJobWithParentsIsNeverDebouncedPastThem() {
        q.enqueue(Job.builder().id("parent").payload("p").delay(Duration.ofHours(1)).build());
        q.enqueue(Job.builder().id("holder").payload("old").dedupe("key", null).dedupeMode(DedupeMode.DEBOUNCE)
                .delay(Duration.ofHours(1)).build());
        // A replace would write the holder scheduled, past the new job's parents: refused until it can wait.
        assertThatThrownBy(() -> Job.builder().id("child").payload("new").after("parent").dedupe("key", null)
                .dedupeMode(DedupeMode.DEBOUNCE).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a job with parents (after) cannot have dedupe mode DEBOUNCE yet: give it parents, or "
                        + "debounce (docs/flows.md)");
        // In throttle mode the held key makes it a duplicate, as for any job.
        EnqueueResult r = q.enqueue(Job.builder().id("child").payload("new").after("parent").dedupe("key", Duration.ofHours(1))
                .build());
        assertThat(r.duplicate()).isTrue();
        assertThat(q.get("child")).isEmpty();
        assertThat(q.get("holder").orElseThrow().payloadUtf8()).isEqualTo("old");
    }

    @Test
    void aDebounceEnqueueReplacesAGroupedHolderMovingItBetweenLanes() {
        EnqueueResult first = q.enqueue(Job.builder().id("holder").group("tenant-2").payload("old")
                .dedupe("key", null).dedupeMode(DedupeMode.DEBOUNCE).delay(Duration.ofHours(1)).build());
        assertThat(first.created()).isTrue();
        assertThat(q.inspector().stats().groups()).isEqualTo(1);

        // Into another group, due now: the holder keeps its id, leaves tenant-2's lane and enters tenant-3's.
        EnqueueResult second = q.enqueue(Job.builder().id("newer").group("tenant-3").payload("new")
                .dedupe("key", null).dedupeMode(DedupeMode.DEBOUNCE).build());
        assertThat(second.replaced()).isTrue();
        assertThat(second.id()).isEqualTo("holder");
        assertThat(q.get("newer")).isEmpty();
        JobInfo holder = q.get("holder").orElseThrow();
        assertThat(holder.payloadUtf8()).isEqualTo("new");
        assertThat(holder.group()).isEqualTo("tenant-3");
        assertThat(q.inspector().stats().groups()).as("tenant-2 has nothing left").isEqualTo(1);
        assertThat(q.inspector().check().problems()).isEmpty();

        // Out of any group: an ungrouped replacement.
        assertThat(q.enqueue(Job.builder().id("third").payload("plain").dedupe("key", null)
                .dedupeMode(DedupeMode.DEBOUNCE).build()).replaced()).isTrue();
        assertThat(q.get("holder").orElseThrow().group()).isNull();
        assertThat(q.inspector().stats().groups()).isZero();
        assertThat(q.inspector().check().problems()).isEmpty();
        ClaimedJob claimed = claimOne();
        assertThat(claimed.id()).isEqualTo("holder");
        assertThat(claimed.payloadUtf8()).isEqualTo("plain");
        q.leases().complete(claimed.lease());

        // Into a group from no group, and claimed from its lane.
        q.enqueue(Job.builder().id("h2").payload("a").dedupe("key2", null).dedupeMode(DedupeMode.DEBOUNCE)
                .delay(Duration.ofHours(1)).build());
        assertThat(q.enqueue(Job.builder().id("x").group("tenant-4").payload("b").dedupe("key2", null)
                .dedupeMode(DedupeMode.DEBOUNCE).build()).replaced()).isTrue();
        ClaimedJob grouped = claimOne();
        assertThat(grouped.id()).isEqualTo("h2");
        assertThat(grouped.group()).isEqualTo("tenant-4");
        q.leases().complete(grouped.lease());
        assertThat(q.inspector().check().problems()).isEmpty();
    }
}
