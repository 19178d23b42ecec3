package dev.delayq.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobContext;
import dev.delayq.JobInfo;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.QueueStats;
import dev.delayq.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * Closing the application mid-run loses nothing and leaves nothing processing: running handlers finish within
 * the shutdown grace, the rest are handed back, and Redis says so once the context is closed.
 */
class DelayqShutdownTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int JOBS = 40;

    /** Handlers that block until released (or interrupted), counting starts and completions per job. */
    static final class Gate {
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger running = new AtomicInteger();
        final Map<String, AtomicInteger> completions = new ConcurrentHashMap<>();
        final AtomicInteger interrupted = new AtomicInteger();

        @DelayqListener(queue = "slow", concurrency = "4")
        void handle(JobContext job) throws InterruptedException {
            running.incrementAndGet();
            try {
                if (!release.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("never released");
                }
                completions.computeIfAbsent(job.id(), k -> new AtomicInteger()).incrementAndGet();
            } catch (InterruptedException e) {
                interrupted.incrementAndGet();
                throw e;
            } finally {
                running.decrementAndGet();
            }
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        Gate gate() {
            return new Gate();
        }
    }

    private ConfigurableApplicationContext start(String prefix, String grace) {
        return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE).properties(
                "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + REDIS.server().port(),
                "delayq.prefix=" + prefix, "delayq.worker.shutdown-grace=" + grace).run();
    }

    private static void enqueue(JobQueue q) {
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            jobs.add(Job.builder().id("job-" + i).build());
        }
        q.enqueueAll(jobs);
    }

    /** Nothing processing, nothing dead, every job done or scheduled, and the queue consistent. */
    private static QueueStats assertNothingLostNothingProcessing(JobQueue q) {
        QueueStats stats = q.inspector().stats();
        assertThat(stats.processing()).as("jobs left processing").isZero();
        assertThat(stats.dead()).as("dead jobs").isZero();
        assertThat(stats.done() + stats.scheduled()).as("done + scheduled").isEqualTo(JOBS);
        for (int i = 0; i < JOBS; i++) {
            assertThat(q.get("job-" + i).map(JobInfo::state)).as("job-%d", i).isPresent()
                    .get().isIn(JobState.DONE, JobState.SCHEDULED);
        }
        assertThat(q.inspector().check().problems()).isEmpty();
        return stats;
    }

    @Test
    void handlersRunningAtShutdownFinishWithinTheGraceAndTheRestStayScheduled() throws Exception {
        String prefix = REDIS.prefix();
        ConfigurableApplicationContext ctx = start(prefix, "30s");
        Gate gate = ctx.getBean(Gate.class);
        enqueue(ctx.getBean(DelayqTemplate.class).queue("slow"));
        Awaitility.await().atMost(WAIT).until(() -> gate.running.get() == 4);
        DelayqWorkers workers = ctx.getBean(DelayqWorkers.class);

        Thread closer = new Thread(ctx::close, "closer");
        closer.start();
        // The workers stop claiming first, then wait for the running handlers: let those finish now.
        Awaitility.await().atMost(WAIT).until(() -> !workers.isRunning());
        gate.release.countDown();
        closer.join(TimeUnit.SECONDS.toMillis(60));
        assertThat(closer.isAlive()).isFalse();

        try (DelayQ dq = DelayQ.builder().redis(REDIS.uri()).prefix(prefix).build()) {
            QueueStats stats = assertNothingLostNothingProcessing(dq.queue("slow"));
            assertThat(stats.done()).as("jobs done").isEqualTo(gate.completions.size()).isGreaterThanOrEqualTo(4);
            assertThat(gate.completions.values()).allMatch(n -> n.get() == 1);
            assertThat(gate.interrupted).hasValue(0);
        }
    }

    @Test
    void handlersStillRunningAfterTheGraceAreHandedBackNotLost() {
        String prefix = REDIS.prefix();
        ConfigurableApplicationContext ctx = start(prefix, "200ms");
        Gate gate = ctx.getBean(Gate.class);
        enqueue(ctx.getBean(DelayqTemplate.class).queue("slow"));
        Awaitility.await().atMost(WAIT).until(() -> gate.running.get() == 4);

        ctx.close(); // the handlers never finish by themselves: interrupted after 200 ms, their jobs handed back

        try (DelayQ dq = DelayQ.builder().redis(REDIS.uri()).prefix(prefix).build()) {
            QueueStats stats = assertNothingLostNothingProcessing(dq.queue("slow"));
            assertThat(stats.done()).isZero();
            assertThat(stats.scheduled()).isEqualTo(JOBS);
            assertThat(gate.interrupted).hasValue(4);
        }
    }
}
