package dev.delayq.internal.worker;

import dev.delayq.ClaimedJob;
import dev.delayq.JobContext;
import dev.delayq.JobListener;
import dev.delayq.RetryPolicy;
import dev.delayq.WorkerMetrics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One worker's shared parts ({@link WorkerContext}) around a fake ticker and fake partitions, for the unit tests of
 * its runtime: no Redis, no thread of its own. Redis's clock reads {@link #SERVER_MS} when the ticker is at its start.
 */
final class TestWorker {
    /** Redis's clock (epoch ms) at the start of the test. */
    static final long SERVER_MS = 1_700_000_000_000L;

    final FakeTicker ticker = new FakeTicker();
    final List<FakePartition> parts = new ArrayList<>();
    final Metrics metrics = new Metrics();
    /** The listener's outcomes, in order, as "job id: OUTCOME". */
    final List<String> outcomes = new CopyOnWriteArrayList<>();
    final WorkerContext ctx;

    TestWorker(int partitions, WorkerConfig config) {
        ServerClock[] clocks = new ServerClock[partitions];
        for (int p = 0; p < partitions; p++) {
            parts.add(new FakePartition(p));
            clocks[p] = new ServerClock(ticker);
            clocks[p].sample(SERVER_MS * 1000, ticker.nanos());
        }
        JobListener listener = (JobContext job, JobListener.Outcome o) -> outcomes.add(job.id() + ": " + o);
        ctx = new WorkerContext("q", config, ticker, List.copyOf(parts), clocks, new InFlight(),
                new ClaimGate(config.concurrency()), new Signal(ticker), metrics, listener, new Callbacks(config.name(), "q"));
    }

    TestWorker(WorkerConfig config) {
        this(1, config);
    }

    /** Settings as a worker's defaults, but for these. */
    static WorkerConfig config(int concurrency, Duration lease, Duration lookahead, Duration ackLinger, Duration standby) {
        return new WorkerConfig("w", concurrency, 100, lease, lookahead, RetryPolicy.defaults(), Duration.ofSeconds(10),
                Duration.ofSeconds(60), Duration.ofMinutes(5), 10, ackLinger, standby, Duration.ZERO,
                WorkerConfig.DEFAULT_HEARTBEAT);
    }

    static WorkerConfig config() {
        return config(8, Duration.ofSeconds(30), Duration.ofMillis(50), Duration.ofMillis(50), Duration.ofMillis(250));
    }

    /** A job of partition {@code p} named {@code name}, due at {@code dueAt} and leased until {@code leaseUntil}. */
    static ClaimedJob job(int p, long token, String name, long dueAt, long leaseUntil) {
        return new ClaimedJob("j" + token, ("payload " + token).getBytes(StandardCharsets.UTF_8), 1, 3, dueAt, token,
                leaseUntil, null, p, name, 0, 0);
    }

    /** A job of partition {@code p} due now, leased for 30 s. */
    static ClaimedJob job(int p, long token) {
        return job(p, token, null, SERVER_MS, SERVER_MS + 30_000);
    }

    /** {@code job} as the worker holds it once claimed (in flight). */
    Running hold(ClaimedJob job) {
        Running r = new Running("q", job, ticker.nanos(), (lease, text) -> null);
        ctx.inFlight().add(r);
        return r;
    }

    /** Counts of the meters the tests look at. */
    static final class Metrics implements WorkerMetrics {
        final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

        int count(String what) {
            AtomicInteger n = counts.get(what);
            return n == null ? 0 : n.get();
        }

        private void add(String what) {
            counts.computeIfAbsent(what, k -> new AtomicInteger()).incrementAndGet();
        }

        @Override
        public void completed(String queue, long nanos) {
            add("completed");
        }

        @Override
        public void failed(String queue, long nanos) {
            add("failed");
        }

        @Override
        public void retried(String queue) {
            add("retried");
        }

        @Override
        public void dead(String queue) {
            add("dead");
        }

        @Override
        public void leaseLost(String queue) {
            add("leaseLost");
        }

        @Override
        public void started(String queue, double lagMillis) {
            add("started");
        }

        @Override
        public void redisError(String queue, String operation) {
            add("redisError " + operation);
        }
    }
}
