package dev.delayq.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobContext;
import dev.delayq.JobInfo;
import dev.delayq.JobQueue;
import dev.delayq.JobState;
import dev.delayq.Limits;
import dev.delayq.Schedule;
import dev.delayq.ScheduleInfo;
import dev.delayq.Worker;
import dev.delayq.testkit.RedisExtension;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

/**
 * What an application declares instead of writing code: {@link DelayqScheduled} methods and {@code delayq.schedules.*}
 * (upserted before the workers start; schedules no longer declared removed or reported), {@code delayq.queues.*}
 * (limits, pause, events, job timeout, attempts), listeners per job name, the worker's name and virtual threads.
 */
class DelayqDeclarativeTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();
    private static final Duration WAIT = Duration.ofSeconds(30);

    /** What the methods of the test configurations ran, in order: "method:job id:thread kind". */
    static final Queue<String> RAN = new ConcurrentLinkedQueue<>();

    private ApplicationContextRunner runner(String prefix) {
        RAN.clear();
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class, TestBootLine.JACKSON_AUTO_CONFIGURATION))
                .withPropertyValues("delayq.redis-url=" + REDIS.uri(), "delayq.prefix=" + prefix);
    }

    private static String prefix(String name) {
        return REDIS.prefix() + "-" + name;
    }

    private static boolean isVirtual(Thread t) {
        try {
            Method m = Thread.class.getMethod("isVirtual");
            return (Boolean) m.invoke(t);
        } catch (NoSuchMethodException e) {
            return false; // Java 17: no virtual threads
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Reports {
        @DelayqScheduled(queue = "reports", name = "heartbeat", every = "${test.every:1s}", missed = "once")
        void heartbeat(JobContext ctx) {
            RAN.add("heartbeat:" + ctx.id());
        }

        @DelayqListener(queue = "reports", name = "sales")
        void sales(Order order) {
            RAN.add("sales:" + order.item());
        }

        @DelayqListener(queue = "reports", name = "from-properties")
        void fromProperties(String payload) {
            RAN.add("from-properties:" + payload);
        }
    }

    @Test
    void scheduledMethodsAndPropertySchedulesTickAndListenersRunTheirJobNames() {
        String prefix = prefix("scheduled");
        runner(prefix).withUserConfiguration(Reports.class)
                .withPropertyValues("delayq.schedules.from-properties.queue=reports",
                        "delayq.schedules.from-properties.cron=* * * * * *", "delayq.schedules.from-properties.payload=p")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    JobQueue reports = ctx.getBean(DelayQ.class).queue("reports");
                    List<ScheduleInfo> schedules = reports.schedules().list();
                    assertThat(schedules).extracting(s -> s.schedule().name())
                            .containsExactlyInAnyOrder("heartbeat", "from-properties");
                    assertThat(reports.schedules().get("heartbeat").orElseThrow().schedule().missed())
                            .isEqualTo(Schedule.Missed.ONCE);
                    reports.enqueue(Job.builder().name("sales").payload("{\"id\":1,\"item\":\"pen\"}").build());
                    Awaitility.await().atMost(WAIT).until(() -> RAN.stream().anyMatch(r -> r.startsWith("heartbeat:heartbeat@"))
                            && RAN.contains("from-properties:p") && RAN.contains("sales:pen"));
                    assertThat(ctx.getBean(DelayqWorkers.class).workers()).hasSize(1);
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class Beats {
        @DelayqScheduled(queue = "beats", name = "kept", every = "1h")
        void kept() {
        }
    }

    @Test
    void aScheduleNoLongerDeclaredIsRemovedOrWithReportKept() {
        String prefix = prefix("removal");
        try (DelayQ delayQ = DelayQ.builder().redis(REDIS.uri()).prefix(prefix).build()) {
            JobQueue beats = delayQ.queue("beats");
            beats.schedules().upsert(Schedule.every("old", Duration.ofHours(1)));
            runner(prefix).withUserConfiguration(Beats.class).withPropertyValues("delayq.schedule-removal=report")
                    .run(ctx -> assertThat(ctx).hasNotFailed());
            assertThat(beats.schedules().list()).extracting(s -> s.schedule().name()).containsExactlyInAnyOrder("old", "kept");
            // Another queue's schedules are not this application's: left alone.
            delayQ.queue("elsewhere").schedules().upsert(Schedule.every("theirs", Duration.ofHours(1)));
            runner(prefix).withUserConfiguration(Beats.class).run(ctx -> assertThat(ctx).hasNotFailed());
            assertThat(beats.schedules().list()).extracting(s -> s.schedule().name()).containsExactly("kept");
            assertThat(delayQ.queue("elsewhere").schedules().get("theirs")).isPresent();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Slow {
        @DelayqListener(queue = "slow", jobTimeout = "300ms")
        void slow(JobContext ctx) throws InterruptedException {
            RAN.add("slow:" + ctx.id() + ":" + (isVirtual(Thread.currentThread()) ? "virtual" : "platform"));
            Thread.sleep(60_000);
        }

        @DelayqListener(queue = "fast")
        void fast(JobContext ctx) {
            RAN.add("fast:" + ctx.id() + ":" + (isVirtual(Thread.currentThread()) ? "virtual" : "platform"));
        }
    }

    @Test
    void queuePropertiesAreAppliedBeforeTheWorkersStartAndTheListenerTimesOutItsJobs() {
        String prefix = prefix("queues");
        runner(prefix).withUserConfiguration(Slow.class)
                .withPropertyValues("delayq.queues.fast.rate=100/1s", "delayq.queues.fast.concurrency-limit=3",
                        "delayq.queues.fast.events=true", "delayq.queues.paused.paused=true",
                        "delayq.queues.slow.max-attempts=1", "delayq.worker.name=orders-7")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    DelayQ delayQ = ctx.getBean(DelayQ.class);
                    assertThat(delayQ.queue("fast").inspector().limits()).isEqualTo(Limits.rate(100, Duration.ofSeconds(1)).concurrency(3));
                    assertThat(delayQ.queue("fast").inspector().events().enabled()).isTrue();
                    assertThat(delayQ.queue("paused").inspector().stats().paused()).isTrue();
                    assertThat(ctx.getBean(DelayqWorkers.class).workers()).extracting(Worker::name)
                            .containsOnly("orders-7");

                    delayQ.queue("slow").enqueue(Job.builder().id("s1").payload("x").build());
                    Awaitility.await().atMost(WAIT).until(() -> delayQ.queue("slow").get("s1")
                            .map(j -> j.state() == JobState.DEAD).orElse(false));
                    JobInfo dead = delayQ.queue("slow").get("s1").orElseThrow();
                    assertThat(dead.lastError()).contains("timed out after");
                    assertThat(RAN).contains("slow:s1:platform");
                });
    }

    @Test
    void withVirtualThreadsEnabledHandlersRunOnThemFromJava21() {
        String prefix = prefix("virtual");
        runner(prefix).withUserConfiguration(Slow.class).withPropertyValues("spring.threads.virtual.enabled=true")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    ctx.getBean(DelayQ.class).queue("fast").enqueue(Job.builder().id("f1").payload("x").build());
                    Awaitility.await().atMost(WAIT).until(() -> RAN.stream().anyMatch(r -> r.startsWith("fast:f1:")));
                    // Java 17 has none: the property is then ignored, with a warning.
                    String expected = Runtime.version().feature() >= 21 ? "virtual" : "platform";
                    assertThat(RAN).contains("fast:f1:" + expected);
                });
    }

    @Test
    void invalidDeclarationsFailTheStartNamingThePropertyOrMethod() {
        Map<String, String> cases = Map.of(
                "delayq.queues.fast.rate=fast", "delayq.queues.fast.rate is 'fast': expected jobs/period such as 100/1s",
                "delayq.schedules.x.cron=* * * * *", "delayq.schedules.x.queue is not set",
                "test.every=soon", "@DelayqScheduled Reports.heartbeat: every 'soon' is not a duration: use a number with ms, s, m, h or d",
                "delayq.schedules.heartbeat.queue=reports,delayq.schedules.heartbeat.every=1s",
                "schedule 'heartbeat' of queue 'reports' is declared twice: by @DelayqScheduled Reports.heartbeat and by "
                        + "delayq.schedules.heartbeat");
        cases.forEach((properties, message) -> runner(prefix("invalid")).withUserConfiguration(Reports.class, Slow.class)
                .withPropertyValues(properties.split(","))
                .run(ctx -> assertThat(ctx).as(properties).getFailure().hasStackTraceContaining(message)));
    }
}
