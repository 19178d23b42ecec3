package dev.delayq;

import dev.delayq.internal.base.Validation;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How failed attempts are retried: up to {@code maxAttempts} attempts in all, the retry after attempt
 * {@code n} due after a delay drawn uniformly from {@code [base, min(cap, base × 2^(n-1))]} (exponential
 * backoff with full jitter above the base, so no retry comes sooner than {@code base} and a fleet of
 * failing jobs does not retry in lock-step).
 *
 * <p>Defaults: 5 attempts, base 5 s, cap 1 h, 5 stalls. A job enqueued with its own max attempts overrides
 * {@code maxAttempts}.
 *
 * <p>An expired lease (the worker died, or the claim's reply was lost) is a <em>stall</em>, not a failed attempt:
 * the job comes back with the same backoff (by its stall count) and its attempt is not counted, so a crash never
 * uses up the attempts of a job that may never have run. A job that stalls more than {@code maxStalls} times (one
 * that keeps killing its workers) goes to dead.
 */
public final class RetryPolicy {
    private static final RetryPolicy DEFAULTS = builder().build();

    private final int maxAttempts;
    private final Duration base;
    private final Duration cap;
    private final int maxStalls;

    private RetryPolicy(Builder b) {
        this.maxAttempts = b.maxAttempts;
        this.base = b.base;
        this.cap = b.cap;
        this.maxStalls = b.maxStalls;
    }

    /** 5 attempts, base 5 s, cap 1 h, 5 stalls. */
    public static RetryPolicy defaults() {
        return DEFAULTS;
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** Attempts in all (the first run included) unless the job sets its own. */
    public int maxAttempts() {
        return maxAttempts;
    }

    /** How many expired leases a job survives; one more sends it to dead. */
    public int maxStalls() {
        return maxStalls;
    }

    /** The shortest retry delay. */
    public Duration base() {
        return base;
    }

    /** The longest retry delay. */
    public Duration cap() {
        return cap;
    }

    /** The delay before the retry that follows failed attempt {@code attempt} (from 1), with fresh jitter. */
    public Duration backoff(int attempt) {
        return Duration.ofMillis(backoffMillis(attempt, ThreadLocalRandom.current().nextDouble()));
    }

    /** The delay for {@code attempt} with jitter {@code random} in {@code [0, 1)}. */
    public long backoffMillis(int attempt, double random) {
        long b = base.toMillis();
        long c = cap.toMillis();
        double exp = b * Math.pow(2, Math.max(attempt - 1, 0));
        long ceiling = exp >= c ? c : (long) exp;
        if (ceiling <= b) {
            return b;
        }
        return b + (long) (random * (ceiling - b));
    }

    /** A builder for the same policy with changes. */
    public Builder toBuilder() {
        return new Builder().maxAttempts(maxAttempts).base(base).cap(cap).maxStalls(maxStalls);
    }

    @Override
    public String toString() {
        return "RetryPolicy[maxAttempts=" + maxAttempts + ", base=" + Validation.human(base) + ", cap="
                + Validation.human(cap) + ", maxStalls=" + maxStalls + "]";
    }

    /** Builder of a {@link RetryPolicy}. */
    public static final class Builder {
        private int maxAttempts = 5;
        private Duration base = Duration.ofSeconds(5);
        private Duration cap = Duration.ofHours(1);
        private int maxStalls = 5;

        private Builder() {
        }

        /** Attempts in all, 1 to 1,000,000 (1 = never retry). */
        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
            return this;
        }

        /** The shortest retry delay (at least 1 ms). */
        public Builder base(Duration base) {
            this.base = base;
            return this;
        }

        /**
         * How many expired leases a job survives (0 to 1,000; default 5): one more sends it to dead with error
         * "lease expired N times".
         */
        public Builder maxStalls(int maxStalls) {
            this.maxStalls = maxStalls;
            return this;
        }

        /** The longest retry delay (at least the base, at most 30 days). */
        public Builder cap(Duration cap) {
            this.cap = cap;
            return this;
        }

        /**
         * Validates and builds the policy.
         *
         * @throws IllegalArgumentException naming the invalid field
         */
        public RetryPolicy build() {
            Validation.maxAttempts(maxAttempts);
            Validation.positive("backoff base", base);
            Validation.positive("backoff cap", cap);
            Validation.atMost("backoff base", base, Bounds.MAX_BACKOFF);
            Validation.atMost("backoff cap", cap, Bounds.MAX_BACKOFF);
            Validation.range("max stalls", maxStalls, 0, 1000);
            if (cap.compareTo(base) < 0) {
                throw new IllegalArgumentException("backoff cap " + Validation.human(cap) + " is shorter than the base "
                        + Validation.human(base) + ": the cap must be at least the base");
            }
            return new RetryPolicy(this);
        }
    }
}
