package dev.delayq.chaos;

import dev.delayq.DelayQConnectionException;
import dev.delayq.DelayQTimeoutException;
import dev.delayq.EnqueueResult;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The producer of a fault scenario: enqueues {@code jobs} jobs with ids {@code <prefix>-<n>}, paced evenly over
 * {@code spread}, each due a seeded random 0-{@code maxDelay} after its enqueue. An enqueue that ends in an error
 * is uncertain ({@link Checker#uncertain}) and is retried with the same id until Redis answers; the answer must
 * name the id that was sent, and a duplicate is only allowed after an error (the first try was applied).
 * Runs on a thread of its own.
 */
final class ChaosProducer {
    private static final Duration RETRY_PAUSE = Duration.ofMillis(50);

    private final JobQueue queue;
    private final Checker checker;
    private final String prefix;
    private final int jobs;
    private final Duration spread;
    private final Duration maxDelay;
    private final Random random;
    private final Duration giveUp;
    private final Map<String, Long> errors = Collections.synchronizedMap(new TreeMap<>());
    private final List<String> wrongAnswers = Collections.synchronizedList(new ArrayList<>());
    private final AtomicLong duplicatesAfterError = new AtomicLong();
    private final AtomicLong retries = new AtomicLong();
    private final Thread thread;

    ChaosProducer(JobQueue queue, Checker checker, String prefix, int jobs, Duration spread, Duration maxDelay, long seed,
                  Duration giveUp) {
        this.queue = queue;
        this.checker = checker;
        this.prefix = prefix;
        this.jobs = jobs;
        this.spread = spread;
        this.maxDelay = maxDelay;
        this.random = new Random(seed);
        this.giveUp = giveUp;
        this.thread = new Thread(this::run, "chaos-producer-" + prefix);
        thread.setDaemon(true);
    }

    ChaosProducer start() {
        thread.start();
        return this;
    }

    /** The id of job {@code n}. */
    String id(int n) {
        return prefix + "-" + n;
    }

    /**
     * The payload of job {@code id}: a reply decoded into the wrong job shows up as a payload mismatch. Padded, so
     * that a claim's reply spans many TCP reads and a tear can fall inside a job's record.
     */
    static String payloadOf(String id) {
        return "payload-of-" + id + ":" + PADDING;
    }

    private static final String PADDING = ".".repeat(600);

    private void run() {
        long start = System.nanoTime();
        for (int n = 0; n < jobs; n++) {
            long due = start + spread.toNanos() * n / jobs;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                try {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000)); // pacing the load, not a wait for a condition
                } catch (InterruptedException e) {
                    return;
                }
            }
            String id = id(n);
            Job job = Job.builder().id(id).payload(payloadOf(id))
                    .delay(Duration.ofMillis(random.nextInt((int) maxDelay.toMillis() + 1))).build();
            if (!enqueue(job)) {
                return;
            }
        }
    }

    /** Enqueues one job, retrying the same id after errors; false when interrupted or past the give-up time. */
    private boolean enqueue(Job job) {
        long deadline = System.nanoTime() + giveUp.toNanos();
        boolean failedBefore = false;
        while (true) {
            try {
                EnqueueResult r = queue.enqueue(job);
                if (!r.id().equals(job.id())) {
                    wrongAnswers.add("enqueue of " + job.id() + " answered " + r);
                } else if (r.duplicate() && !failedBefore) {
                    wrongAnswers.add("first enqueue of " + job.id() + " answered duplicate");
                } else if (r.duplicate()) {
                    duplicatesAfterError.incrementAndGet();
                }
                checker.acked(job.id());
                return true;
            } catch (DelayQConnectionException | DelayQTimeoutException e) {
                errors.merge(e.getClass().getSimpleName(), 1L, Long::sum);
            } catch (RuntimeException e) {
                // A cut connection or a slow server surfaces as one of the two above; anything else is a reply
                // decoded wrongly (or a bug).
                errors.merge(e.getClass().getSimpleName(), 1L, Long::sum);
                wrongAnswers.add("enqueue of " + job.id() + " threw " + e);
            }
            checker.uncertain(job.id());
            failedBefore = true;
            retries.incrementAndGet();
            if (System.nanoTime() > deadline) {
                wrongAnswers.add("enqueue of " + job.id() + " still failing after " + giveUp);
                return false;
            }
            try {
                Thread.sleep(RETRY_PAUSE.toMillis()); // the producer's retry backoff
            } catch (InterruptedException e) {
                return false;
            }
        }
    }

    /** Waits for the producer to finish (bounded); false when it did not. */
    boolean join(Duration max) throws InterruptedException {
        thread.join(max.toMillis());
        return !thread.isAlive();
    }

    /** Stops the producer (at the end of a failed test). */
    void stop() {
        thread.interrupt();
    }

    /** Errors seen by the producer, by exception class. */
    Map<String, Long> errors() {
        synchronized (errors) {
            return new TreeMap<>(errors);
        }
    }

    /** Errors seen in total. */
    long errorCount() {
        return errors().values().stream().mapToLong(Long::longValue).sum();
    }

    /** Enqueues retried after an error whose retry answered "duplicate" (the first try had been applied). */
    long duplicatesAfterError() {
        return duplicatesAfterError.get();
    }

    /** Answers that did not fit what was sent (wrong id, duplicate without a prior error, foreign exceptions). */
    List<String> wrongAnswers() {
        synchronized (wrongAnswers) {
            return new ArrayList<>(wrongAnswers);
        }
    }
}
