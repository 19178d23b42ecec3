package dev.delayq.internal.worker;

import static dev.delayq.internal.worker.TestWorker.SERVER_MS;
import static dev.delayq.internal.worker.TestWorker.job;
import static org.assertj.core.api.Assertions.assertThat;

import dev.delayq.ClaimedJob;
import dev.delayq.JobContext;
import dev.delayq.NonRetryableException;
import dev.delayq.RetryLaterException;
import dev.delayq.RetryPolicy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher on a fake ticker and fake partitions: the handler of a job's name runs it (else the default one, else
 * it fails for good), its outcome goes to the acknowledger with the retry rule of its exception, its slot is freed
 * whatever it did, a job leased ahead starts at its due time by Redis's clock and not before, a job whose lease ran out
 * before it could start never starts, and a job the executor refuses is handed back.
 */
class DispatcherTest {
    private static final int CONCURRENCY = 2;

    private final TestWorker worker = new TestWorker(TestWorker.config(CONCURRENCY, Duration.ofSeconds(30),
            Duration.ofMillis(50), Duration.ZERO, Duration.ofMillis(250)));
    private final Acker acker = new Acker(worker.ctx, new ManualScheduler(worker.ticker));
    private final Deadlines deadlines = new Deadlines("w");
    /** "handler: job id" for every run. */
    private final List<String> runs = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        deadlines.stop();
    }

    private Dispatcher dispatcher(Routes routes, Executor executor) {
        return new Dispatcher(worker.ctx, routes, executor, acker, new HandBack(worker.ctx), deadlines);
    }

    private Routes.Builder routes() {
        return new Routes.Builder();
    }

    private dev.delayq.JobHandler recording(String handler) {
        return (JobContext ctx) -> runs.add(handler + ": " + ctx.id());
    }

    /** Takes a slot, as the claim loop does before it claims, and dispatches {@code job}. */
    private void dispatch(Dispatcher d, ClaimedJob job) {
        assertThat(worker.ctx.gate().take(1)).isTrue();
        d.dispatch(job);
    }

    private FakePartition part() {
        return worker.parts.get(0);
    }

    @Test
    void eachJobRunsWithTheHandlerOfItsNameElseTheDefaultOne() {
        Dispatcher d = dispatcher(routes().add("email", recording("email")).add("sms", recording("sms"))
                .fallback(recording("default")).build(), Runnable::run);
        dispatch(d, job(0, 1, "email", SERVER_MS, SERVER_MS + 30_000));
        dispatch(d, job(0, 2, "sms", SERVER_MS, SERVER_MS + 30_000));
        dispatch(d, job(0, 3, "push", SERVER_MS, SERVER_MS + 30_000));
        dispatch(d, job(0, 4, null, SERVER_MS, SERVER_MS + 30_000));
        assertThat(runs).containsExactly("email: j1", "sms: j2", "default: j3", "default: j4");
        assertThat(part().completes).as("outcomes went to the acknowledger").isNotEmpty();
        assertThat(part().fails).isEmpty();
        assertThat(worker.ctx.gate().free()).as("every slot freed").isEqualTo(CONCURRENCY);
    }

    @Test
    void aJobNoHandlerCoversFailsForGood() {
        Dispatcher d = dispatcher(routes().add("email", recording("email")).build(), Runnable::run);
        dispatch(d, job(0, 1, "sms", SERVER_MS, SERVER_MS + 30_000));
        assertThat(runs).isEmpty();
        FakePartition.FailArgs fail = part().fails.poll().args();
        assertThat(fail.retryable()).isFalse();
        assertThat(fail.error()).isEqualTo("no handler for job name 'sms' (this worker handles: email)");
        assertThat(worker.ctx.gate().free()).isEqualTo(CONCURRENCY);
    }

    @Test
    void aHandlersExceptionDecidesTheRetry() {
        Dispatcher d = dispatcher(routes()
                .add("throws", ctx -> {
                    throw new IllegalStateException("down");
                })
                .add("never", ctx -> {
                    throw new NonRetryableException("bad input");
                })
                .add("later", ctx -> {
                    throw new RetryLaterException(Duration.ofMinutes(7), "busy");
                }).build(), Runnable::run);
        dispatch(d, job(0, 1, "throws", SERVER_MS, SERVER_MS + 30_000));
        dispatch(d, job(0, 2, "never", SERVER_MS, SERVER_MS + 30_000));
        dispatch(d, job(0, 3, "later", SERVER_MS, SERVER_MS + 30_000));
        FakePartition.FailArgs thrown = part().fails.poll().args();
        assertThat(thrown.retryable()).isTrue();
        assertThat(thrown.error()).startsWith("java.lang.IllegalStateException: down");
        assertThat(thrown.backoff().toMillis()).as("the policy's back-off of attempt 1")
                .isEqualTo(RetryPolicy.defaults().backoffMillis(1, 0));
        FakePartition.FailArgs never = part().fails.poll().args();
        assertThat(never.retryable()).isFalse();
        FakePartition.FailArgs later = part().fails.poll().args();
        assertThat(later.retryable()).isTrue();
        assertThat(later.backoff()).isEqualTo(Duration.ofMinutes(7));
        assertThat(worker.metrics.count("failed")).isEqualTo(3);
        assertThat(worker.ctx.gate().free()).isEqualTo(CONCURRENCY);
    }

    @Test
    void aJobWhoseLeaseRanOutBeforeItCouldStartNeverStarts() {
        Dispatcher d = dispatcher(routes().fallback(recording("default")).build(), Runnable::run);
        dispatch(d, job(0, 1, null, SERVER_MS - 10_000, SERVER_MS));
        assertThat(runs).isEmpty();
        assertThat(worker.metrics.count("leaseLost")).isEqualTo(1);
        assertThat(worker.ctx.inFlight().isEmpty()).isTrue();
        assertThat(part().completes).isEmpty();
        assertThat(part().fails).isEmpty();
        assertThat(worker.ctx.gate().free()).isEqualTo(CONCURRENCY);
    }

    @Test
    void aJobTheExecutorRefusesIsHandedBack() {
        Dispatcher d = dispatcher(routes().fallback(recording("default")).build(), task -> {
            throw new RejectedExecutionException("full");
        });
        ClaimedJob job = job(0, 1);
        dispatch(d, job);
        assertThat(runs).isEmpty();
        assertThat(part().released).containsExactly(List.of(job.lease()));
        assertThat(worker.outcomes).containsExactly("j1: HANDED_BACK");
        assertThat(worker.ctx.inFlight().isEmpty()).isTrue();
        assertThat(worker.ctx.gate().free()).isEqualTo(CONCURRENCY);
    }

    @Test
    void aJobLeasedAheadStartsAtItsDueTimeByRedissClockAndNotBefore() {
        AtomicReference<Thread> handlerThread = new AtomicReference<>();
        Dispatcher d = dispatcher(routes().fallback(recording("default")).build(), task -> {
            Thread t = new Thread(task, "test-handler");
            t.setDaemon(true);
            handlerThread.set(t);
            t.start();
        });
        dispatch(d, job(0, 1, null, SERVER_MS + 40, SERVER_MS + 30_000));
        Awaitility.await().atMost(Duration.ofSeconds(30))
                .until(() -> handlerThread.get().getState() == Thread.State.TIMED_WAITING);
        assertThat(runs).as("waiting for its due time").isEmpty();
        worker.ticker.advance(Duration.ofMillis(39));
        Awaitility.await().atMost(Duration.ofSeconds(30))
                .until(() -> handlerThread.get().getState() == Thread.State.TIMED_WAITING);
        assertThat(runs).as("a millisecond early").isEmpty();
        worker.ticker.advance(Duration.ofMillis(1));
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> runs.size() == 1);
        assertThat(worker.metrics.count("started")).isEqualTo(1);
    }
}
