package dev.delayq.bench;

import dev.delayq.JobContext;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntConsumer;
import org.HdrHistogram.Histogram;

/**
 * What the consumers' handlers saw: each job id started, when (local {@code nanoTime}), and its lag (handler
 * start on Redis's clock − due time). The handler does nothing else, so the workloads measure delayq, not
 * the handler.
 */
final class Recorder {
    private static final long HIGHEST_LAG_MICROS = TimeUnit.HOURS.toMicros(1);
    private static final long WAIT_STEP_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final int expected;
    private final RedisClock clock;
    private final Set<String> seen;
    private final Set<String> duplicated = ConcurrentHashMap.newKeySet();
    private final AtomicInteger distinct = new AtomicInteger();
    private final AtomicLongArray startNanos;
    private final AtomicLongArray lagNanos;

    /** A recorder for {@code expected} jobs, timing them on {@code clock}. */
    Recorder(int expected, RedisClock clock) {
        this.expected = expected;
        this.clock = clock;
        this.seen = ConcurrentHashMap.newKeySet(Math.max(16, expected * 2));
        this.startNanos = new AtomicLongArray(Math.max(1, expected));
        this.lagNanos = new AtomicLongArray(Math.max(1, expected));
    }

    /** The handler: records that {@code job} started now. */
    void started(JobContext job) {
        long now = System.nanoTime();
        if (!seen.add(job.id())) {
            duplicated.add(job.id());
            return;
        }
        int i = distinct.getAndIncrement();
        if (i < startNanos.length()) {
            startNanos.set(i, now);
            lagNanos.set(i, clock.redisNanos(now) - job.dueAt().toEpochMilli() * 1_000_000L);
        }
    }

    /** Distinct job ids started so far. */
    int distinct() {
        return distinct.get();
    }

    /**
     * Waits until {@code n} distinct jobs have started or local time reaches {@code deadlineNanos}, calling
     * {@code progress} with the count about ten times a second.
     *
     * @return whether all {@code n} started
     */
    boolean awaitDistinct(int n, long deadlineNanos, IntConsumer progress) throws InterruptedException {
        while (true) {
            int d = distinct.get();
            progress.accept(d);
            if (d >= n) {
                return true;
            }
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            RedisClock.parkUntilNanos(System.nanoTime() + Math.min(left, WAIT_STEP_NANOS));
        }
    }

    /** What was recorded so far. */
    Tally tally() {
        int n = Math.min(distinct.get(), startNanos.length());
        Histogram lag = new Histogram(HIGHEST_LAG_MICROS, 3);
        long last = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            last = Math.max(last, startNanos.get(i));
            // The clock estimate is good to half a round trip, so a start can appear a few microseconds
            // before its due time; that counts as no lag.
            long micros = Math.max(0, lagNanos.get(i) / 1_000);
            lag.recordValue(Math.min(micros, HIGHEST_LAG_MICROS));
        }
        return new Tally(expected, distinct.get(), duplicated.size(), n > 0 ? clock.redisNanos(last) : Long.MIN_VALUE, lag);
    }

    /**
     * A summary of the starts.
     *
     * @param expected            jobs enqueued
     * @param distinct            distinct job ids started
     * @param duplicates          job ids started more than once
     * @param lastStartRedisNanos the last first start, on Redis's clock (epoch ns), or {@code Long.MIN_VALUE}
     * @param lagMicros           lag of each job's first start, in microseconds
     */
    record Tally(int expected, int distinct, int duplicates, long lastStartRedisNanos, Histogram lagMicros) {
        /** Jobs enqueued and never started. */
        int missing() {
            return Math.max(0, expected - distinct);
        }

        /** Lag at {@code percentile} in milliseconds, {@code NaN} when nothing started. */
        double lagMillis(double percentile) {
            return lagMicros.getTotalCount() == 0 ? Double.NaN : lagMicros.getValueAtPercentile(percentile) / 1000.0;
        }

        /** Largest lag in milliseconds, {@code NaN} when nothing started. */
        double maxLagMillis() {
            return lagMicros.getTotalCount() == 0 ? Double.NaN : lagMicros.getMaxValue() / 1000.0;
        }
    }
}
