package dev.delayq;

import dev.delayq.internal.Validation;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How failed attempts are retried: up to {@code maxAttempts} attempts in all, the retry after attempt
 * {@code n} due after a delay drawn uniformly from {@code [base, min(cap, base × 2^(n-1))]} (exponential
 * backoff with full jitter above the base, so no retry comes sooner than {@code base} and a fleet of
 * failing jobs does not retry in lock-step).
 *
 * <p>Defaults: 5 attempts, base 5 s, cap 1 h. A job enqueued with its own max attempts overrides
 * {@code maxAttempts}. The same backoff applies to jobs recovered from an expired lease.
 */
public final class RetryPolicy {
    private static final RetryPolicy DEFAULTS = builder().build();

    private final int maxAttempts;
    private final Duration base;
    private final Duration cap;

    private RetryPolicy(Builder b) {
        this.maxAttempts = b.maxAttempts;
        this.base = b.base;
        this.cap = b.cap;
    }

    /** 5 attempts, base 5 s, cap 1 h. */
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
        return new Builder().maxAttempts(maxAttempts).base(base).cap(cap);
    }

    @Override
    public String toString() {
        return "RetryPolicy[maxAttempts=" + maxAttempts + ", base=" + base + ", cap=" + cap + "]";
    }

    /** Builder of a {@link RetryPolicy}. */
    public static final class Builder {
        private int maxAttempts = 5;
        private Duration base = Duration.ofSeconds(5);
        private Duration cap = Duration.ofHours(1);

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

        /** The longest retry delay (at least the base). */
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
            if (cap.compareTo(base) < 0) {
                throw new IllegalArgumentException("backoff cap " + cap + " is shorter than the base " + base
                        + ": the cap must be at least the base");
            }
            return new RetryPolicy(this);
        }
    }
}
