package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Large payloads cost Redis in proportion to their bytes, so claims and pages are bounded by bytes as well as by
 * count: a claim of a hundred 1 MiB jobs must not copy 100 MiB through Redis's one thread in one script.
 */
class LargePayloadTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();
    private static final int MIB = 1024 * 1024;

    private TestSupport t;
    private JobQueue q;

    @BeforeEach
    void open() {
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
        q = t.queue(t.client(b -> b.maxPayloadBytes(MIB)), "big");
    }

    @AfterEach
    void close() {
        t.close();
    }

    @Test
    void aClaimStopsAtItsByteBoundAndSaysThereIsMore() {
        byte[] payload = new byte[MIB];
        Arrays.fill(payload, (byte) 7);
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            jobs.add(Job.builder().id(String.format("b%02d", i)).payload(payload).build());
        }
        q.enqueueAll(jobs);
        ClaimBatch first = q.leases().claim(ClaimOptions.of(30, Duration.ofMinutes(1)));
        assertThat(first.jobs().size()).as("jobs of 1 MiB in one claim bounded by 8 MiB").isBetween(1, 9);
        assertThat(first.nextDueMillis()).as("more are due: claim again").isEqualTo(ClaimBatch.NOT_COMPUTED);
        List<ClaimedJob> all = new ArrayList<>(first.jobs());
        while (all.size() < 30) {
            ClaimBatch b = q.leases().claim(ClaimOptions.of(30, Duration.ofMinutes(1)));
            assertThat(b.jobs()).isNotEmpty();
            all.addAll(b.jobs());
        }
        assertThat(all).extracting(ClaimedJob::id).doesNotHaveDuplicates().hasSize(30);
        assertThat(all).allMatch(j -> Arrays.equals(j.payload(), payload));
        q.leases().completeAllAsync(all.stream().map(ClaimedJob::lease).toList()).join();
        assertThat(q.inspector().list(JobState.DONE, 0, 30)).hasSize(30); // pages bounded by bytes, read page after page
    }

    @Test
    void aClaimBoundedByBytesInsideAPriorityLeavesTheRestOfItDue() {
        // The byte bound stops a claim among priority-3 jobs: only what it took leaves the priority set, and the rest
        // are claimed later, before the jobs of priority 0.
        byte[] payload = new byte[MIB];
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            jobs.add(Job.builder().id(String.format("p%02d", i)).priority(3).payload(payload).build());
        }
        for (int i = 0; i < 10; i++) {
            jobs.add(Job.builder().id(String.format("z%02d", i)).payload(payload).build());
        }
        q.enqueueAll(jobs);
        List<ClaimedJob> all = new ArrayList<>();
        while (all.size() < 30) {
            ClaimBatch b = q.leases().claim(ClaimOptions.of(30, Duration.ofMinutes(1)));
            assertThat(b.jobs()).as("claim after %d jobs", all.size()).isNotEmpty();
            assertThat(b.jobs().size()).isLessThan(20);
            all.addAll(b.jobs());
        }
        assertThat(all).extracting(ClaimedJob::id).doesNotHaveDuplicates()
                .containsExactlyElementsOf(jobs.stream().map(Job::id).toList());
        q.leases().completeAllAsync(all.stream().map(ClaimedJob::lease).toList()).join();
        assertThat(q.inspector().check().problems()).isEmpty();
    }
}
