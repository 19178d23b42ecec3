package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Pausing and resuming a schedule on a real Redis with a real worker: a paused schedule makes no tick (its pending one
 * cancelled), resume makes them again from the next tick after now (those that passed while paused skipped whatever
 * the missed-tick policy), and the paused state leaves no key behind once resumed or removed.
 */
class SchedulePauseTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private TestSupport t;
    private JobQueue q;

    @BeforeEach
    void open() {
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
        q = t.queue(t.client(), "spause");
    }

    @AfterEach
    void close() {
        t.close();
    }

    private List<Long> ticks(String name) {
        return TestSupport.ticks(q, name);
    }

    private long pausedKeyExists() {
        return ((Number) t.target().call("EXISTS", REDIS.prefix() + ":{spause}:schedules:paused")).longValue();
    }

    @Test
    void aPausedScheduleMakesNoTicksWhileAWorkerRunsAndResumeMakesThemAgain() {
        Schedules s = q.schedules();
        s.upsert(Schedule.every("beat", Duration.ofSeconds(1)));
        Set<String> ran = ConcurrentHashMap.newKeySet();
        try (Worker w = Worker.builder(q, job -> ran.add(job.id())).build().start()) {
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> ran.size() >= 2);

            assertThat(s.pause("beat")).isTrue();
            long pausedAt = t.redisNow();
            ScheduleInfo paused = s.get("beat").orElseThrow();
            assertThat(paused.paused()).isTrue();
            assertThat(paused.nextTick()).as("no next tick while paused").isNull();
            assertThat(s.list()).extracting(ScheduleInfo::paused).containsExactly(true);
            assertThat(pausedKeyExists()).isEqualTo(1);
            // Its pending tick was cancelled (a tick already running may finish): nothing of it is left to run.
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> q.inspector().stats().scheduled()
                    + q.inspector().stats().processing() == 0);
            List<Long> atPause = ticks("beat");
            assertThat(atPause).allMatch(tick -> tick <= pausedAt + 1_000);

            // Three of its seconds pass with the worker's ticker running: no tick is made.
            t.awaitRedisTime(pausedAt + 3_500);
            assertThat(s.tick()).as("an explicit tick makes none either").isZero();
            assertThat(ticks("beat")).isEqualTo(atPause);
            assertThat(q.inspector().stats().scheduled()).isZero();

            assertThat(s.resume("beat")).isTrue();
            long resumedAt = t.redisNow();
            ScheduleInfo resumed = s.get("beat").orElseThrow();
            assertThat(resumed.paused()).isFalse();
            assertThat(resumed.nextTick().toEpochMilli()).as("the next tick after now").isGreaterThan(resumedAt - 1)
                    .isLessThanOrEqualTo(resumedAt + 1_000);
            assertThat(pausedKeyExists()).as("no paused key left").isZero();
            int before = ran.size();
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> ran.size() >= before + 2);
            // The ticks while paused were skipped: none between the pause and the resume.
            assertThat(ticks("beat")).noneMatch(tick -> tick > pausedAt + 1_000 && tick < resumedAt);
        }
    }

    @Test
    void ticksMissedWhilePausedAreSkippedEvenUnderAll() {
        Schedules s = q.schedules();
        s.upsert(Schedule.every("all", Duration.ofSeconds(1)).missed(Schedule.Missed.ALL));
        long first = s.get("all").orElseThrow().nextTick().toEpochMilli();
        assertThat(s.pause("all")).isTrue();
        assertThat(q.get("all@" + first)).as("the pending tick cancelled").isEmpty();
        assertThat(q.inspector().stats().total("cancelled")).isEqualTo(1);
        t.awaitRedisTime(first + 3_000);
        assertThat(s.tick()).isZero();
        long now = t.redisNow();
        assertThat(s.resume("all")).isTrue();
        assertThat(ticks("all")).as("one tick, the next after now").hasSize(1).allMatch(tick -> tick > now);
        t.awaitRedisTime(ticks("all").get(0));
        assertThat(s.tick()).as("the next advance: one tick, no catch-up of the paused time").isEqualTo(1);
        assertThat(ticks("all")).hasSize(2);
    }

    @Test
    void upsertWhilePausedKeepsItPausedAndRemoveLeavesNoKey() {
        Schedules s = q.schedules();
        s.upsert(Schedule.every("x", Duration.ofSeconds(1)));
        assertThat(s.pause("x")).isTrue();
        assertThat(s.pause("x")).as("pausing again changes nothing").isTrue();
        assertThat(s.upsert(Schedule.every("x", Duration.ofSeconds(2)).payload("v2"))).isFalse();
        ScheduleInfo i = s.get("x").orElseThrow();
        assertThat(i.paused()).isTrue();
        assertThat(i.schedule().every()).isEqualTo(Duration.ofSeconds(2));
        assertThat(ticks("x")).isEmpty();
        assertThat(s.remove("x")).isTrue();
        assertThat(pausedKeyExists()).isZero();
        assertThat(s.pause("x")).as("no such schedule").isFalse();
        assertThat(s.resume("x")).isFalse();
        s.upsert(Schedule.every("y", Duration.ofSeconds(1)));
        assertThat(s.resume("y")).as("resuming a running schedule changes nothing").isTrue();
        assertThat(ticks("y")).hasSize(1);
        assertThat(pausedKeyExists()).isZero();
    }
}
