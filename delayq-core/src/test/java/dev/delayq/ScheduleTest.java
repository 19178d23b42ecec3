package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.testkit.RedisExtension;
import dev.delayq.testkit.RedisServer;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Recurring schedules on a real Redis, in real time where it matters: missed-tick policies after a pause of every
 * ticker, no overlap, ticks enqueued (not run) while the queue is paused, and schedules surviving a Redis restart.
 */
class ScheduleTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private TestSupport t;
    private JobQueue q;

    @BeforeEach
    void open() {
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
        q = t.queue(t.client(), "sched");
    }

    @AfterEach
    void close() {
        t.close();
    }

    private static List<Long> ticks(JobQueue q, String name) {
        return TestSupport.ticks(q, name);
    }

    @Test
    void missedTicksAreSkippedRunOnceOrAllRunAsThePolicySays() {
        Schedules s = q.schedules();
        s.upsert(Schedule.every("skip", Duration.ofSeconds(1)));
        s.upsert(Schedule.every("once", Duration.ofSeconds(1)).missed(Schedule.Missed.ONCE));
        s.upsert(Schedule.every("all", Duration.ofSeconds(1)).missed(Schedule.Missed.ALL));
        long first = s.get("all").orElseThrow().nextTick().toEpochMilli();
        // Nothing ticks for a while: the pending first tick becomes due, and about three more pass unseen.
        t.awaitRedisTime(first + 3_500);
        long before = t.redisNow();
        assertThat(s.tick()).isGreaterThanOrEqualTo(1 + 2 + 4); // skip: next; once: 1 + next; all: >= 3 + next
        long after = t.redisNow();

        List<Long> skip = ticks(q, "skip");
        assertThat(skip).hasSize(2).first().isEqualTo(first);
        assertThat(skip.get(1)).isGreaterThan(before).isLessThanOrEqualTo(after + 1000);

        List<Long> once = ticks(q, "once");
        assertThat(once).hasSize(3).first().isEqualTo(first);
        assertThat(once.get(1)).as("the latest missed tick").isGreaterThan(before - 1000).isLessThanOrEqualTo(after);
        assertThat(once.get(2)).isEqualTo(once.get(1) + 1000);

        List<Long> all = ticks(q, "all");
        assertThat(all.get(0)).isEqualTo(first);
        for (int i = 1; i < all.size(); i++) {
            assertThat(all.get(i) - all.get(i - 1)).as("every tick, none twice").isEqualTo(1000);
        }
        assertThat(all.get(all.size() - 1)).isGreaterThan(after - 1000).isLessThanOrEqualTo(after + 1000);
        assertThat(s.get("all").orElseThrow().nextTick().toEpochMilli()).isEqualTo(all.get(all.size() - 1));
    }

    @Test
    void allCatchesUpAtMostTheBoundOfTheLatestTicks() {
        // A schedule of 1s whose stored next tick is long past (as if nothing ticked for 1000 s): 100 catch-ups + next.
        Schedule s = Schedule.every("late", Duration.ofSeconds(1)).missed(Schedule.Missed.ALL);
        q.schedules().upsert(s);
        long next = q.schedules().get("late").orElseThrow().nextTick().toEpochMilli();
        long past = next - 1_000_000;
        t.target().call("HSET", REDIS.prefix() + ":{sched}:schedules", "late",
                new String(dev.delayq.internal.ops.ScheduleOps.encode(s, past, -1), java.nio.charset.StandardCharsets.UTF_8));
        int created = q.schedules().tick();
        assertThat(created).isBetween(Schedule.MAX_CATCH_UP, Schedule.MAX_CATCH_UP + 1); // + the next (unless it is `next`)
        List<Long> ticks = ticks(q, "late");
        assertThat(ticks).doesNotHaveDuplicates().hasSizeBetween(Schedule.MAX_CATCH_UP + 1, Schedule.MAX_CATCH_UP + 2);
    }

    @Test
    void withNoOverlapTheNextTickWaitsForThePreviousJobToEnd() {
        Schedules s = q.schedules();
        s.upsert(Schedule.every("solo", Duration.ofSeconds(1)).noOverlap(true));
        long first = s.get("solo").orElseThrow().nextTick().toEpochMilli();
        t.awaitRedisTime(first + 1_200);
        ClaimedJob running = q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1))).jobs().get(0);
        assertThat(running.id()).isEqualTo("solo@" + first);
        assertThat(s.tick()).as("the previous tick's job runs: nothing enqueued").isZero();
        assertThat(ticks(q, "solo")).containsExactly(first);
        q.leases().complete(running.lease());
        long now = t.redisNow();
        assertThat(s.tick()).isEqualTo(1);
        List<Long> ticks = ticks(q, "solo");
        assertThat(ticks).hasSize(2);
        assertThat(ticks.get(1)).as("the next future tick (the one missed meanwhile skipped)").isGreaterThan(now);
    }

    @Test
    void withNoOverlapAWorkerRunsEveryTickWhoseTimeCameAfterThePreviousJobEnded() {
        Schedules s = q.schedules();
        s.upsert(Schedule.every("steady", Duration.ofSeconds(1)).noOverlap(true));
        try (Worker w = Worker.builder(q, job -> { }).build().start()) {
            Awaitility.await().atMost(Duration.ofSeconds(60))
                    .until(() -> ticks(q, "steady").stream().filter(tk -> state(tk) == JobState.DONE).count() >= 4);
        }
        List<Long> ticks = ticks(q, "steady").stream().filter(tk -> state(tk) == JobState.DONE).toList();
        // A tick may be skipped only while the job of the tick before it still ran (a slow machine can make a job
        // outlast a second); a tick that came after that job had ended must have run. (Woken a second after its
        // previous run ended, the ticker used to drop every other tick of such a schedule.)
        for (int i = 0; i + 1 < ticks.size(); i++) {
            long ended = q.get("steady@" + ticks.get(i)).orElseThrow().finishedAtMillis();
            for (long skipped = ticks.get(i) + 1_000; skipped < ticks.get(i + 1); skipped += 1_000) {
                assertThat(ended).as("tick %d skipped: the job of tick %d ended at %d", skipped, ticks.get(i), ended)
                        .isGreaterThan(skipped);
            }
        }
    }

    private JobState state(long tick) {
        return q.get("steady@" + tick).map(JobInfo::state).orElse(null);
    }

    @Test
    void whilePausedTicksAreEnqueuedButNotRunAndResumeRunsTheBacklog() {
        Set<String> ran = ConcurrentHashMap.newKeySet();
        q.inspector().pause();
        q.schedules().upsert(Schedule.every("paused", Duration.ofSeconds(1)));
        try (Worker w = Worker.builder(q, job -> ran.add(job.id())).build().start()) {
            long from = t.redisNow();
            // 3 s paused: the worker's ticker goes on enqueuing ticks, none is run.
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> t.redisNow() > from + 3_000
                    && q.inspector().stats().scheduled() >= 3);
            assertThat(ran).isEmpty();
            assertThat(q.inspector().stats().processing() + q.inspector().stats().done()).isZero();
            long backlog = q.inspector().stats().scheduled();
            q.inspector().resume();
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> ran.size() >= backlog - 1);
            assertThat(ran).allMatch(id -> id.startsWith("paused@"));
        }
    }

    @Test
    void changingAScheduleReplacesItsPendingTickAndKeepsItsHistory() {
        Schedules s = q.schedules();
        assertThat(s.upsert(Schedule.cron("daily", "0 3 * * *", ZoneId.of("UTC")))).isTrue();
        ScheduleInfo before = s.get("daily").orElseThrow();
        String oldTick = ScheduleInfo.tickId("daily", before.nextTick());
        assertThat(q.get(oldTick)).isPresent();
        assertThat(s.upsert(Schedule.cron("daily", "0 4 * * *", ZoneId.of("UTC")).payload("v2"))).isFalse();
        ScheduleInfo after = s.get("daily").orElseThrow();
        assertThat(after.nextTick()).isNotEqualTo(before.nextTick());
        assertThat(after.nextTick().atZone(ZoneId.of("UTC")).getHour()).isEqualTo(4);
        assertThat(q.get(oldTick)).as("the old pending tick cancelled").isEmpty();
        assertThat(new String(q.get(ScheduleInfo.tickId("daily", after.nextTick())).orElseThrow().payload(),
                java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("v2");
        assertThat(q.inspector().stats().scheduled()).isEqualTo(1);
        assertThat(q.inspector().stats().total("cancelled")).isEqualTo(1);
        // Past its end, a schedule stays listed with no next tick and nothing pending.
        java.time.Instant end = java.time.Instant.ofEpochMilli(t.redisNow() - 1000);
        s.upsert(Schedule.every("over", Duration.ofSeconds(1)).start(end.minusSeconds(60)).end(end));
        assertThat(s.get("over").orElseThrow().nextTick()).isNull();
        assertThat(ticks(q, "over")).isEmpty();
    }

    @Test
    void badInputIsRefusedAtTheEdge() {
        assertThatThrownBy(() -> q.schedules().upsert(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Schedule.cron");
        assertThatThrownBy(() -> q.schedules().remove("a@b")).hasMessageContaining("contains '@'");
        assertThatThrownBy(() -> Schedule.cron("x", "* * * * *", null)).hasMessageContaining("zone");
        assertThatThrownBy(() -> Schedule.cron("x", "nonsense here * * *", ZoneId.of("UTC"))).hasMessageContaining("invalid");
        assertThat(q.schedules().list()).isEmpty();
    }

    @Test
    void aStoredScheduleThatCannotBeReadIsNamedSkippedByTicksAndRepairedByUpsertOrRemove() {
        q.schedules().upsert(Schedule.every("good", Duration.ofSeconds(1)));
        String key = REDIS.prefix() + ":{sched}:schedules";
        t.target().call("HSET", key, "bad", "garbage");
        assertThatThrownBy(() -> q.schedules().list()).isInstanceOf(DelayQException.class)
                .hasMessageContaining("stored schedule 'bad' cannot be read").hasMessageContaining("remove it");
        assertThatThrownBy(() -> q.schedules().get("bad")).hasMessageContaining("'bad'");
        long first = q.schedules().get("good").orElseThrow().nextTick().toEpochMilli();
        t.awaitRedisTime(first);
        assertThat(q.schedules().tick()).as("the good schedule ticks, the bad one is skipped").isEqualTo(1);
        assertThat(q.schedules().upsert(Schedule.every("bad", Duration.ofMinutes(1)))).as("replaced").isFalse();
        assertThat(q.schedules().list()).hasSize(2);
        t.target().call("HSET", key, "bad", "garbage");
        assertThat(q.schedules().remove("bad")).isTrue();
        assertThat(q.schedules().list()).extracting(i -> i.schedule().name()).containsExactly("good");
    }

    @Test
    void schedulesSurviveARedisRestartWithAofAndGoOnTicking() {
        try (RedisServer server = RedisServer.builder().config("appendonly", "yes").config("appendfsync", "always").start();
             DelayQ dq = DelayQ.builder().redis(server.uri()).timeout(Duration.ofSeconds(2)).build()) {
            JobQueue aq = dq.queue("aof");
            Schedule s = Schedule.cron("nightly", "30 2 * * *", ZoneId.of("Europe/Berlin")).payload("p").missed(Schedule.Missed.ONCE);
            aq.schedules().upsert(s);
            aq.schedules().upsert(Schedule.every("fast", Duration.ofSeconds(1)));
            ScheduleInfo before = aq.schedules().get("nightly").orElseThrow();
            server.restart();
            Awaitility.await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> aq.schedules().list().size() == 2);
            assertThat(aq.schedules().get("nightly").orElseThrow()).isEqualTo(before);
            assertThat(aq.get("nightly@" + before.nextTick().toEpochMilli())).isPresent();
            List<Long> seen = new CopyOnWriteArrayList<>();
            try (Worker w = Worker.builder(aq, job -> seen.add(job.dueAt().toEpochMilli())).build().start()) {
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() >= 2);
            }
            assertThat(aq.inspector().check().problems()).isEmpty();
        }
    }
}
