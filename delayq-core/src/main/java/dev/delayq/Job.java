package dev.delayq;

import dev.delayq.internal.Validation;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A job to enqueue: an id, a payload and when it should run. Immutable; build it with {@link #builder()}.
 *
 * <pre>{@code
 * Job job = Job.builder()
 *         .id("order-731:timeout")             // stable business id: enqueueing it twice creates one job
 *         .payload("{\"order\":731}")
 *         .delay(Duration.ofMinutes(30))       // measured on the Redis server's clock
 *         .build();
 * }</pre>
 *
 * <p>Without an id, the client generates a random 12-character one. Without a delay or instant, the job is
 * due at once. Without max attempts, the worker's retry policy decides.
 */
public final class Job {
    private final String id;
    private final byte[] payload;
    private final Duration delay;
    private final Instant runAt;
    private final int maxAttempts;
    private final String dedupeKey;
    private final Duration dedupeTtl;

    private Job(Builder b) {
        this.id = b.id;
        this.payload = b.payload;
        this.delay = b.delay;
        this.runAt = b.runAt;
        this.maxAttempts = b.maxAttempts;
        this.dedupeKey = b.dedupeKey;
        this.dedupeTtl = b.dedupeTtl;
    }

    /** A new builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** A job with a generated id and this UTF-8 payload, due at once. */
    public static Job of(String payload) {
        return builder().payload(payload).build();
    }

    /** The caller's id, or {@code null} when the client will generate one. */
    public String id() {
        return id;
    }

    /** The payload bytes (a copy). */
    public byte[] payload() {
        return payload.clone();
    }

    /** The payload without copying; callers must not modify it. */
    public byte[] payloadUnsafe() {
        return payload;
    }

    /** The delay from enqueue (on Redis's clock), or {@code null} when {@link #runAt()} is set. */
    public Duration delay() {
        return delay;
    }

    /** The absolute due time, or {@code null} when {@link #delay()} is set. */
    public Instant runAt() {
        return runAt;
    }

    /** Max attempts for this job, or 0 when the worker's retry policy decides. */
    public int maxAttempts() {
        return maxAttempts;
    }

    /** The dedupe key, or {@code null}. */
    public String dedupeKey() {
        return dedupeKey;
    }

    /** How long the dedupe key holds, or {@code null} without a dedupe key. */
    public Duration dedupeTtl() {
        return dedupeTtl;
    }

    @Override
    public String toString() {
        return "Job[id=" + id + ", payload=" + payload.length + " bytes, "
                + (runAt != null ? "runAt=" + runAt : "delay=" + delay)
                + (maxAttempts > 0 ? ", maxAttempts=" + maxAttempts : "")
                + (dedupeKey != null ? ", dedupeKey=" + dedupeKey + ", dedupeTtl=" + dedupeTtl : "") + "]";
    }

    /** Builder of a {@link Job}; {@link #build()} validates every field. */
    public static final class Builder {
        private String id;
        private byte[] payload = new byte[0];
        private Duration delay = Duration.ZERO;
        private Instant runAt;
        private int maxAttempts;
        private String dedupeKey;
        private Duration dedupeTtl;

        private Builder() {
        }

        /**
         * A stable business id (e.g. {@code order-731:timeout}): 1-512 UTF-8 bytes, no control characters.
         * While a job with this id is scheduled, running or retained, enqueueing it again returns a duplicate.
         */
        public Builder id(String id) {
            this.id = id;
            return this;
        }

        /** The payload, any bytes (copied). */
        public Builder payload(byte[] payload) {
            this.payload = Objects.requireNonNull(payload, "payload").clone();
            return this;
        }

        /** The payload as UTF-8 text. */
        public Builder payload(String payload) {
            this.payload = Objects.requireNonNull(payload, "payload").getBytes(StandardCharsets.UTF_8);
            return this;
        }

        /** Due after this delay, measured on the Redis server's clock (zero or positive). */
        public Builder delay(Duration delay) {
            this.delay = delay;
            this.runAt = null;
            return this;
        }

        /** Due at this instant (1970 to year 9999). */
        public Builder runAt(Instant at) {
            this.runAt = at;
            this.delay = null;
            return this;
        }

        /** Max attempts for this job (1 to 1,000,000), overriding the worker's retry policy. */
        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = Validation.maxAttempts(maxAttempts);
            return this;
        }

        /**
         * A dedupe key: while it holds (for {@code ttl}, even after the job is gone), enqueueing any job with
         * the same key in this queue returns a duplicate naming the first job.
         */
        public Builder dedupe(String key, Duration ttl) {
            this.dedupeKey = key;
            this.dedupeTtl = ttl;
            return this;
        }

        /**
         * Validates and builds the job.
         *
         * @throws IllegalArgumentException naming the first invalid field and what is allowed
         */
        public Job build() {
            if (id != null) {
                Validation.jobId(id);
            }
            if (runAt != null) {
                Validation.instant("run-at instant", runAt);
            } else {
                Validation.delay("delay", delay);
            }
            if (dedupeKey != null || dedupeTtl != null) {
                Validation.dedupeKey(dedupeKey);
                Validation.positive("dedupe TTL", dedupeTtl);
            }
            return new Job(this);
        }
    }
}
