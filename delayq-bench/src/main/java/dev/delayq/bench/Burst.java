package dev.delayq.bench;

import dev.delayq.DelayQ;
import dev.delayq.EnqueueResult;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A burst (W1, and the due jobs of W5): N jobs all due at T0 = first enqueue + 3 s, enqueued with
 * {@code enqueueAllAsync} while the consumers wait, then drained by them. Measures the enqueue rate
 * (N / (last enqueue acknowledged − first enqueue sent)), the drain rate (N / (last handler start − T0)), the
 * lag of each start, and which jobs started twice or never.
 */
final class Burst {
    /** T0 is this long after the first enqueue. */
    static final Duration LEAD = Duration.ofSeconds(3);
    private static final Duration MIN_LEAD = Duration.ofMillis(500);
    /** How long after all jobs started a duplicate start is still looked for. */
    static final Duration GRACE = Duration.ofSeconds(1);
    private static final Duration MIN_GRACE = Duration.ofMillis(300);
    /** Time to build the jobs before the first enqueue, which is then sent exactly at T0 − lead. */
    private static final long PREPARE_MILLIS = 300;
    /**
     * Redis's CPU is counted from this long before the burst's first claim can come: Redis's clock is mapped to this
     * one within a few ms.
     */
    private static final long CLOCK_MARGIN_MILLIS = 10;
    /** The drain deadline: T0 + this + 1 ms per job. */
    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(30);

    /**
     * What one burst measured.
     *
     * @param enqueueJobsPerSec N / (last acknowledged − first sent)
     * @param drainJobsPerSec   N / (last handler start − T0); {@code NaN} when not every job started
     * @param tally             the starts
     * @param redisCpuMicrosPerJob Redis's CPU time from T0 − lookahead to the end of the grace, per job: what
     *                          claiming and completing one job costs Redis (the part of the work that a bigger
     *                          Redis, or a cluster, scales)
     */
    record Result(double enqueueJobsPerSec, double drainJobsPerSec, Recorder.Tally tally, double redisCpuMicrosPerJob) {
    }

    private Burst() {
    }

    /** Runs a burst of {@code n} jobs with ids {@code <idPrefix><i>} on {@code queue}; {@code what} names it in the progress line. */
    static Result run(BenchContext ctx, String queue, String idPrefix, int n, String what) throws InterruptedException {
        return run(ctx, queue, idPrefix, n, what, BenchContext.PAYLOAD);
    }

    /** The same burst with {@code payload} as every job's payload (W6: 10 KB). */
    static Result run(BenchContext ctx, String queue, String idPrefix, int n, String what, byte[] payload)
            throws InterruptedException {
        BenchConfig config = ctx.config();
        long lead = config.span(LEAD, MIN_LEAD).toMillis();
        Progress progress = ctx.progress();
        try (DelayQ producer = ctx.client("producer")) {
            JobQueue q = producer.queue(queue, config.partitions());
            Warmup.scripts(producer, queue, config.flow());
            RedisClock clock = ctx.clock();
            Recorder recorder = new Recorder(n, clock);
            try (Consumers consumers = Consumers.start(ctx, queue, recorder)) {
                long t0 = clock.nowMillis() + PREPARE_MILLIS + lead;
                Instant due = Instant.ofEpochMilli(t0);
                List<Job> jobs = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    jobs.add(Job.builder().id(idPrefix + i).payload(payload).runAt(due).build());
                }
                progress.show(what + ": enqueueing " + n + " jobs due at T0");
                clock.parkUntil(t0 - lead);
                AtomicLong acked = new AtomicLong();
                long sent = System.nanoTime();
                CompletableFuture<List<EnqueueResult>> f = q.enqueueAllAsync(jobs)
                        .whenComplete((r, e) -> acked.set(System.nanoTime()));
                checkCreated(join(f), n, what);
                double enqueueRate = n / seconds(acked.get() - sent);
                // Redis's CPU is counted from the first claim that can lease a job of the burst (T0 less the
                // workers' lookahead, less CLOCK_MARGIN_MILLIS for the mapping of the clocks), as docs/WORKLOADS.md
                // defines it: not the idle seconds between the enqueue and T0.
                clock.parkUntil(t0 - config.lookahead().toMillis() - CLOCK_MARGIN_MILLIS);
                long cpuBefore = ctx.target().cpuMicros();

                long deadline = clock.localNanosAt(t0) + DRAIN_TIMEOUT.toNanos() + TimeUnit.MILLISECONDS.toNanos(n);
                long t0Nanos = clock.localNanosAt(t0);
                boolean all = recorder.awaitDistinct(n, deadline, d -> progress.show(System.nanoTime() - t0Nanos < 0
                        ? what + ": waiting for T0" : what + ": draining " + d + "/" + n, false));
                if (all) {
                    progress.show(what + ": checking for duplicates");
                    RedisClock.parkUntilNanos(System.nanoTime() + config.span(GRACE, MIN_GRACE).toNanos());
                }
                Recorder.Tally tally = recorder.tally();
                double drainRate = all ? n / seconds(tally.lastStartRedisNanos() - t0 * 1_000_000L) : Double.NaN;
                double cpuPerJob = (ctx.target().cpuMicros() - cpuBefore) / (double) n;
                return new Result(enqueueRate, drainRate, tally, cpuPerJob);
            }
        }
    }

    /** Every job of a workload has a fresh id on an empty keyspace: a duplicate enqueue is a broken run. */
    static void checkCreated(List<EnqueueResult> results, int n, String what) {
        long created = results.stream().filter(EnqueueResult::created).count();
        if (created != n) {
            throw new IllegalStateException(what + ": only " + created + " of " + n
                    + " enqueues created a job (the keyspace was not empty?)");
        }
    }

    /** Joins an enqueue, surfacing its own exception rather than a CompletionException. */
    static <T> T join(CompletableFuture<T> f) {
        try {
            return f.join();
        } catch (CompletionException e) {
            Throwable c = e.getCause();
            throw c instanceof RuntimeException re ? re : e;
        }
    }

    /** Nanoseconds as seconds, at least one nanosecond so that a rate stays finite. */
    static double seconds(long nanos) {
        return Math.max(1, nanos) / 1e9;
    }
}
