package dev.delayq;

import dev.delayq.internal.base.Validation;
import java.time.Duration;
import java.util.Objects;

/**
 * A queue's flow limits, kept in Redis and enforced inside the claim script, so they hold across every worker:
 * a rate limit (at most N jobs handed out in any window of the given length, a sliding window exact on Redis's clock:
 * no burst beyond N in any window) and a concurrency limit (at most N jobs held by all workers at once).
 *
 * <pre>{@code
 * queue.limits(Limits.rate(50, Duration.ofSeconds(1)).concurrency(10));
 * queue.limits(Limits.none());                  // no limits
 * }</pre>
 */
public final class Limits {
    private static final Limits NONE = new Limits(0, null, 0);

    private final int rateJobs;
    private final Duration ratePer;
    private final int concurrency;

    private Limits(int rateJobs, Duration ratePer, int concurrency) {
        this.rateJobs = rateJobs;
        this.ratePer = ratePer;
        this.concurrency = concurrency;
    }

    /** No limits. */
    public static Limits none() {
        return NONE;
    }

    /**
     * At most {@code jobs} jobs handed out in any window of {@code per} (1 to 1,000,000,000 jobs; 1 ms to 30 days).
     *
     * @throws IllegalArgumentException naming the bad value
     */
    public static Limits rate(int jobs, Duration per) {
        return NONE.withRate(jobs, per);
    }

    /** At most {@code n} jobs held by all workers at once (1 to 1,000,000,000). */
    public static Limits ofConcurrency(int n) {
        return NONE.concurrency(n);
    }

    /** These limits with the rate limit set. */
    public Limits withRate(int jobs, Duration per) {
        Validation.range("rate limit jobs", jobs, 1, 1_000_000_000);
        Validation.positive("rate limit window", per);
        Validation.atMost("rate limit window", per, Bounds.MAX_BACKOFF);
        return new Limits(jobs, per, concurrency);
    }

    /** These limits with the concurrency limit set. */
    public Limits concurrency(int n) {
        Validation.range("concurrency limit", n, 1, 1_000_000_000);
        return new Limits(rateJobs, ratePer, n);
    }

    /** Jobs per rate window, 0 when there is no rate limit. */
    public int rateJobs() {
        return rateJobs;
    }

    /** The rate window, or {@code null} when there is no rate limit. */
    public Duration ratePer() {
        return ratePer;
    }

    /** The concurrency limit, 0 when there is none. */
    public int concurrency() {
        return concurrency;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Limits l && l.rateJobs == rateJobs && Objects.equals(l.ratePer, ratePer) && l.concurrency == concurrency;
    }

    @Override
    public int hashCode() {
        return Objects.hash(rateJobs, ratePer, concurrency);
    }

    @Override
    public String toString() {
        return "Limits[" + (rateJobs > 0 ? "rate " + rateJobs + "/" + Validation.human(ratePer) : "no rate limit")
                + ", " + (concurrency > 0 ? "concurrency " + concurrency : "no concurrency limit") + "]";
    }
}
