package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.micrometer.MicrometerMetrics;
import dev.delayq.testkit.RedisExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A worker survives Redis going away and coming back (empty script cache included) without a restart. */
class WorkerOutageTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.dedicated(b -> b.config("appendonly", "yes").config("appendfsync", "always"));

    @Test
    void aWorkerKeepsGoingThroughARedisRestart() {
        try (TestSupport t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix())) {
            DelayQ dq = t.client(b -> b.timeout(Duration.ofSeconds(1)));
            JobQueue q = t.queue(dq, "outage");
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            // A short idle sleep makes the worker call Redis during the outage (a wake-up notice published just
            // before the crash may never be delivered; the reconnect wakes the worker in that case).
            try (Worker w = Worker.builder(q, job -> { }).metrics(new MicrometerMetrics(registry))
                    .maxIdleSleep(Duration.ofMillis(200)).build().start()) {
                for (int i = 0; i < 10; i++) {
                    q.enqueue(Job.builder().id("before-" + i).build());
                }
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> q.inspector().stats().done() == 10);
                q.enqueue(Job.builder().id("due-after-restart").delay(Duration.ofSeconds(2)).build());

                REDIS.server().kill();
                Awaitility.await().atMost(Duration.ofSeconds(30))
                        .until(() -> registry.find("delayq.redis.errors").counters().stream().mapToDouble(c -> c.count()).sum() > 0);
                REDIS.server().restart();

                Awaitility.await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                        .until(() -> q.enqueue(Job.builder().id("after").build()).created());
                Awaitility.await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> q.inspector().stats().done() == 12);
                assertThat(w.isRunning()).isTrue();
                assertThat(q.get("due-after-restart").orElseThrow().attempt()).isEqualTo(1);
            }
        }
    }

    @Test
    void aJobWhoseLeaseRanOutBeforeItCouldStartIsNotStarted() throws Exception {
        try (TestSupport t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix())) {
            // A command time-out that a loaded machine's slow replies cannot reach (300 ms was reached in a loaded run).
            DelayQ dq = t.client(b -> b.timeout(Duration.ofSeconds(2)));
            JobQueue q = t.queue(dq, "late-start");
            java.util.List<Integer> started = new java.util.concurrent.CopyOnWriteArrayList<>();
            java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.atomic.AtomicInteger queued = new java.util.concurrent.atomic.AtomicInteger();
            // An executor that holds tasks back, as a starved or paused JVM would.
            java.util.concurrent.Executor held = task -> {
                queued.incrementAndGet();
                new Thread(() -> {
                    try {
                        gate.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    task.run();
                }).start();
            };
            RetryPolicy quick = RetryPolicy.builder().base(Duration.ofMillis(10)).cap(Duration.ofMillis(10)).build();
            // A lease long enough that a busy machine's pause before the test pauses Redis cannot end it first.
            try (Worker w = Worker.builder(q, job -> started.add(job.stalls())).executor(held).leaseDuration(Duration.ofSeconds(2))
                    .lookahead(Duration.ZERO).retryPolicy(quick).build().start()) {
                q.enqueue(Job.builder().id("j").build());
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> queued.get() == 1);
                REDIS.server().pause(); // renewals now fail: the lease runs out while the task waits
                // Every lease the worker got before the pause ends within one lease length of it (on one machine the
                // local clock is Redis's). A renewal of an expired lease is refused, so once Redis is back the
                // worker knows its lease is lost; it never starts the job.
                long allLeasesOver = System.currentTimeMillis() + 2_000 + 500;
                try {
                    Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> System.currentTimeMillis() > allLeasesOver);
                } finally {
                    REDIS.server().resume();
                }
                gate.countDown();
                // The expired lease is recovered (a stall, not an attempt) and the job runs once, after one stall.
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> !started.isEmpty()
                        && q.get("j").map(i -> i.state() == JobState.DONE).orElse(false));
                assertThat(started).containsExactly(1);
                assertThat(w.isRunning()).isTrue();
            }
        }
    }

    @Test
    void aCompletionRetriedAfterItsReplyWasLostIsNotALostLeaseWithoutDoneRetention() throws Exception {
        try (TestSupport t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix())) {
            // Done jobs are deleted at once: a completion re-sent after its first call applied finds no job at all.
            // A command time-out that a loaded machine's slow replies cannot reach: with 300 ms, a run with both cores
            // busy saw every retry of the completion time out too, for over 30 s, after Redis resumed.
            DelayQ dq = t.client(b -> b.timeout(Duration.ofSeconds(2)).doneRetention(Duration.ZERO));
            JobQueue q = t.queue(dq, "lost-reply");
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            java.util.List<String> outcomes = new java.util.concurrent.CopyOnWriteArrayList<>();
            java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            try (Worker w = Worker.builder(q, job -> {
                        started.countDown();
                        release.await(30, java.util.concurrent.TimeUnit.SECONDS);
                    }).metrics(new MicrometerMetrics(registry)).listener((job, o) -> outcomes.add(job.id() + ":" + o))
                    .build().start()) {
                q.enqueue(Job.builder().id("j").build());
                assertThat(started.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
                REDIS.server().pause(); // the completion reaches Redis only when it resumes: its first call times out
                try {
                    release.countDown();
                    Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> registry.find("delayq.redis.errors")
                            .tag("operation", "complete").counters().stream().mapToDouble(c -> c.count()).sum() > 0);
                } finally {
                    REDIS.server().resume();
                }
                // The first call applies once Redis runs again (the job is deleted); the retry finds nothing.
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> !outcomes.isEmpty() && w.inFlight() == 0);
                assertThat(outcomes).containsExactly("j:COMPLETED");
                assertThat(registry.get("delayq.leases.lost").counter().count()).isZero();
                assertThat(registry.get("delayq.jobs.completed").counter().count()).isEqualTo(1);
                assertThat(q.get("j")).isEmpty();
                assertThat(q.inspector().stats().total("completed")).isEqualTo(1);
            }
        }
    }
}
