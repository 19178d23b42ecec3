package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.testkit.RedisExtension;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.slf4j.event.Level;

/**
 * What a worker logs about its jobs (docs/logging.md): one WARN per failed attempt, saying what comes next; one WARN per
 * lost lease, which is not a failed attempt; successes at DEBUG; the job in the MDC while its handler runs. Every line
 * under {@code dev.delayq} is recorded ({@link LogCapture}), so "once" means no other line of the worker names the job.
 */
class WorkerLoggingTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final RetryPolicy QUICK = RetryPolicy.builder().maxAttempts(3).base(Duration.ofMillis(100))
            .cap(Duration.ofMillis(100)).build();
    private static final DateTimeFormatter ISO = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

    private TestSupport t;
    private DelayQ dq;
    private LogCapture.Recording log;
    private final List<Worker> workers = new CopyOnWriteArrayList<>();

    @BeforeEach
    void open() {
        log = LogCapture.record("dev.delayq");
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
        dq = t.client();
    }

    @AfterEach
    void closeAll() {
        try {
            workers.forEach(Worker::close);
            t.close();
        } finally {
            log.close();
        }
    }

    private Worker start(Worker.Builder b) {
        Worker w = b.build();
        workers.add(w);
        return w.start();
    }

    /** The lines of the worker's loggers that name job {@code id} in queue {@code queue}, in any format. */
    private List<LogCapture.Event> about(String queue, String id) {
        return log.events().stream()
                .filter(e -> !e.logger().startsWith("dev.delayq.test"))
                .filter(e -> e.message().contains(id) && e.message().contains(queue))
                .toList();
    }

    private static List<String> at(List<LogCapture.Event> events, Level level) {
        return events.stream().filter(e -> e.level() == level).map(LogCapture.Event::message).toList();
    }

    @Test
    void eachFailedAttemptIsOneWarningSayingWhenTheNextIsDueAndTheLastSaysDead() {
        JobQueue q = t.queue(dq, "orders");
        q.enqueue(Job.builder().id("order-731:timeout").name("payment-timeout").maxAttempts(3).build());
        List<Instant> dueAt = new CopyOnWriteArrayList<>();
        start(Worker.builder(q, ctx -> {
            dueAt.add(ctx.dueAt());
            throw new SocketTimeoutException("Read timed out");
        }).retryPolicy(QUICK));
        Awaitility.await().atMost(WAIT).until(() -> q.inspector().stats().dead() == 1);
        Awaitility.await().atMost(WAIT).until(() -> at(about("orders", "order-731:timeout"), Level.WARN).size() >= 3);

        List<LogCapture.Event> lines = about("orders", "order-731:timeout");
        assertThat(lines).allMatch(e -> e.logger().equals("dev.delayq.jobs"), "logged on dev.delayq.jobs");
        List<String> warnings = at(lines, Level.WARN);
        assertThat(dueAt).hasSize(3);
        String error = " error=\"java.net.SocketTimeoutException: Read timed out\"";
        assertThat(warnings).containsExactly(
                "job failed: queue=orders id=order-731:timeout name=payment-timeout attempt=1/3 next="
                        + ISO.format(dueAt.get(1)) + error,
                "job failed: queue=orders id=order-731:timeout name=payment-timeout attempt=2/3 next="
                        + ISO.format(dueAt.get(2)) + error,
                "job failed: queue=orders id=order-731:timeout name=payment-timeout attempt=3/3 next=dead" + error);
        assertThat(at(lines, Level.INFO)).isEmpty();
        assertThat(at(lines, Level.ERROR)).isEmpty();
        // The stack trace of each failure, at DEBUG only.
        assertThat(lines).filteredOn(e -> e.level() == Level.DEBUG && e.message().startsWith("job threw: "))
                .hasSize(3).allMatch(e -> e.error() instanceof SocketTimeoutException);
    }

    @Test
    void aJobSentStraightToDeadIsOneWarningAndValuesWithBlanksAreQuoted() {
        JobQueue q = t.queue(dq, "mail");
        q.enqueue(Job.builder().id("user 7 \"welcome\"").build());
        start(Worker.builder(q, ctx -> {
            throw new NonRetryableException("bad address\n\tat line 2");
        }).retryPolicy(QUICK));
        Awaitility.await().atMost(WAIT).until(() -> q.inspector().stats().dead() == 1);
        Awaitility.await().atMost(WAIT).until(() -> !at(about("mail", "user 7"), Level.WARN).isEmpty());
        assertThat(at(about("mail", "user 7"), Level.WARN)).containsExactly(
                "job failed: queue=mail id=\"user 7 \\\"welcome\\\"\" name=- attempt=1/3 next=dead "
                        + "error=\"dev.delayq.NonRetryableException: bad address\"");
    }

    @Test
    void aSuccessIsOneDebugLineAndNothingAbove() {
        JobQueue q = t.queue(dq, "fine");
        q.enqueue(Job.builder().id("ok-1").name("report").build());
        start(Worker.builder(q, ctx -> { }).retryPolicy(QUICK));
        Awaitility.await().atMost(WAIT).until(() -> !about("fine", "ok-1").isEmpty());
        List<LogCapture.Event> lines = about("fine", "ok-1");
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0).level()).isEqualTo(Level.DEBUG);
        assertThat(lines.get(0).logger()).isEqualTo("dev.delayq.jobs");
        assertThat(lines.get(0).message()).matches("job completed: queue=fine id=ok-1 name=report attempt=1/3 took=\\S+");
    }

    @Test
    void aTimeoutIsAFailedAttemptLoggedOnce() {
        JobQueue q = t.queue(dq, "slow");
        q.enqueue(Job.builder().id("slow-1").timeout(Duration.ofMillis(300)).build());
        start(Worker.builder(q, ctx -> {
            if (ctx.attempt() == 1) {
                TimeUnit.HOURS.sleep(1); // interrupted at the deadline
            }
        }).retryPolicy(QUICK));
        Awaitility.await().atMost(WAIT).until(() -> q.inspector().stats().done() == 1);
        Awaitility.await().atMost(WAIT).until(() -> at(about("slow", "slow-1"), Level.DEBUG).stream()
                .anyMatch(m -> m.startsWith("job completed: ")));
        List<LogCapture.Event> lines = about("slow", "slow-1");
        assertThat(at(lines, Level.WARN)).singleElement().asString()
                .matches("job failed: queue=slow id=slow-1 name=- attempt=1/3 next=\\S+Z error=\"timed out after 300ms\"");
        assertThat(at(lines, Level.INFO)).isEmpty();
        assertThat(at(lines, Level.DEBUG)).anyMatch(m -> m.startsWith("job completed: queue=slow id=slow-1 name=- attempt=2/3"));
    }

    @Test
    void aLostLeaseIsOneWarningOfItsOwnAndNotAFailedAttempt() {
        JobQueue q = t.queue(dq, "lost");
        q.enqueue(Job.builder().id("victim").build());
        start(Worker.builder(q, ctx -> {
            if (ctx.stalls() == 0) {
                Awaitility.await().atMost(WAIT).until(ctx::leaseLost);
                throw new IllegalStateException("gave up: lease lost"); // its failure is refused: not an attempt
            }
        }).concurrency(2).leaseDuration(Duration.ofSeconds(5)).retryPolicy(QUICK));
        Awaitility.await().atMost(WAIT).until(() -> q.get("victim").orElseThrow().state() == JobState.PROCESSING);
        // Another party takes the job away: its lease made to look expired, then recovered (as WorkerContract does).
        Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(1)).until(() -> {
            if (q.get("victim").orElseThrow().stalls() == 0) {
                t.target().call("ZADD", t.prefix() + ":{lost}:leases", "1", "victim");
                q.leases().recover(10, QUICK);
            }
            return q.get("victim").orElseThrow().stalls() == 1;
        });
        Awaitility.await().atMost(WAIT).until(() -> q.inspector().stats().done() == 1);
        // The first run learns of the loss at its next renewal, then fails; its failure is refused.
        Awaitility.await().atMost(WAIT).until(() -> at(about("lost", "victim"), Level.DEBUG).stream()
                .anyMatch(m -> m.startsWith("job lease lost: ")));

        List<LogCapture.Event> lines = about("lost", "victim");
        List<String> warnings = at(lines, Level.WARN);
        assertThat(warnings).singleElement().asString().matches(
                "job lease lost: queue=lost id=victim name=- attempt=1/3 token=\\d+ reason=\"renewal refused \\(\\w+\\)\"");
        assertThat(at(lines, Level.DEBUG)).anyMatch(m -> m.matches("job lease lost: queue=lost id=victim name=- attempt=1/3 "
                + "token=\\d+ reason=\"failure refused \\(\\w+\\)\" error=\"java.lang.IllegalStateException: gave up: "
                + "lease lost\" \\(reported before\\)"));
        assertThat(lines).noneMatch(e -> e.message().startsWith("job failed: "));
        assertThat(q.get("victim").orElseThrow().attempt()).isEqualTo(1);
    }

    @Test
    void theMdcHoldsTheJobWhileItsHandlerRunsOnTheUsersExecutorAndIsPutBackAfter() throws Exception {
        JobQueue q = t.queue(dq, "ctx");
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try {
            executor.submit(() -> MDC.put("app", "outer")).get(); // the thread's own context, kept across jobs
            q.enqueue(Job.builder().id("m-1").name("mail").maxAttempts(2).build());
            List<Map<String, String>> seen = new CopyOnWriteArrayList<>();
            org.slf4j.Logger handlerLog = LoggerFactory.getLogger("dev.delayq.test.handler");
            start(Worker.builder(q, ctx -> {
                seen.add(MDC.getCopyOfContextMap());
                handlerLog.info("sending");
                if (ctx.attempt() == 1) {
                    throw new IllegalStateException("smtp down");
                }
            }).executor(executor).retryPolicy(QUICK));
            Awaitility.await().atMost(WAIT).until(() -> q.inspector().stats().done() == 1);

            assertThat(seen).containsExactly(
                    Map.of("app", "outer", "delayq.queue", "ctx", "delayq.jobId", "m-1", "delayq.attempt", "1",
                            "delayq.jobName", "mail"),
                    Map.of("app", "outer", "delayq.queue", "ctx", "delayq.jobId", "m-1", "delayq.attempt", "2",
                            "delayq.jobName", "mail"));
            assertThat(log.events()).filteredOn(e -> e.logger().equals("dev.delayq.test.handler"))
                    .extracting(e -> e.mdc().get("delayq.jobId") + "#" + e.mdc().get("delayq.attempt"))
                    .containsExactly("m-1#1", "m-1#2");
            // After the handler (one that threw, one that returned): the thread's own context, nothing of the job.
            assertThat(executor.submit(MDC::getCopyOfContextMap).get()).isEqualTo(Map.of("app", "outer"));
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void theMdcOfTheWorkersOwnThreadsHoldsOnlyTheJobThatRuns() {
        JobQueue q = t.queue(dq, "own");
        q.enqueue(Job.builder().id("named").name("sms").build());
        List<Map<String, String>> seen = new CopyOnWriteArrayList<>();
        start(Worker.builder(q, ctx -> {
            Map<String, String> m = MDC.getCopyOfContextMap();
            seen.add(m == null ? Map.of() : m);
        }).concurrency(1).retryPolicy(QUICK));
        Awaitility.await().atMost(WAIT).until(() -> q.inspector().stats().done() == 1);
        q.enqueue(Job.builder().id("anonymous").build());
        Awaitility.await().atMost(WAIT).until(() -> q.inspector().stats().done() == 2);
        assertThat(seen).containsExactly(
                Map.of("delayq.queue", "own", "delayq.jobId", "named", "delayq.attempt", "1", "delayq.jobName", "sms"),
                Map.of("delayq.queue", "own", "delayq.jobId", "anonymous", "delayq.attempt", "1"));
    }
}
