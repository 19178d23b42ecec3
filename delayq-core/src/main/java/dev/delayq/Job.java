package dev.delayq;

import dev.delayq.internal.base.Ids;
import dev.delayq.internal.base.JobOptionChecks;
import dev.delayq.internal.base.Validation;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
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
 * <p>Without an id, {@link Builder#build()} generates a random 12-character one, so enqueueing the same {@code Job}
 * again (a retry after a timeout, say) finds the job the first call created instead of creating a second one.
 * Without a delay or instant, the job is due at once. Without max attempts, the worker's retry policy decides. A
 * name routes the job to the worker's handler for that name ({@code Worker.builder(queue).handle(name, ...)}).
 */
public final class Job {
    private final String id;
    private final boolean idGenerated;
    /** This job's own copy of the builder it was built from: every field but the id (never changed after). */
    private final Builder spec;

    private Job(Builder b, String id, boolean idGenerated) {
        this.spec = b.copy();
        this.id = id;
        this.idGenerated = idGenerated;
    }

    /** A new builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** A job with a generated id and this UTF-8 payload, due at once. */
    public static Job of(String payload) {
        return builder().payload(payload).build();
    }

    /** The job's id: the caller's, or the one generated when it was built. */
    public String id() {
        return id;
    }

    /** Whether {@link #id()} was generated (no id was given). */
    public boolean idGenerated() {
        return idGenerated;
    }

    /** The job's name (its type: which handler runs it), or {@code null}. */
    public String name() {
        return spec.name;
    }

    /** The payload bytes (a copy). */
    public byte[] payload() {
        return spec.payload.clone();
    }

    /** The payload without copying; callers must not modify it. */
    public byte[] payloadUnsafe() {
        return spec.payload;
    }

    /** The delay from enqueue (on Redis's clock), or {@code null} when {@link #runAt()} is set. */
    public Duration delay() {
        return spec.delay;
    }

    /** The absolute due time, or {@code null} when {@link #delay()} is set. */
    public Instant runAt() {
        return spec.runAt;
    }

    /** Max attempts for this job, or 0 when the worker's retry policy decides. */
    public int maxAttempts() {
        return spec.maxAttempts;
    }

    /** The dedupe key, or {@code null}. */
    public String dedupeKey() {
        return spec.dedupeKey;
    }

    /** How long the dedupe key holds, or {@code null} without a dedupe key (or in debounce mode without TTL). */
    public Duration dedupeTtl() {
        return spec.dedupeTtl;
    }

    /** What an enqueue does when the dedupe key is held: {@link DedupeMode#THROTTLE} unless set. */
    public DedupeMode dedupeMode() {
        return spec.dedupeMode;
    }

    /** 0 to 9: among jobs that are due, higher priorities are claimed first. */
    public int priority() {
        return spec.priority;
    }

    /** The ids of the jobs this one waits for (see {@link Builder#after(String...)}); empty when none. */
    public List<String> after() {
        return spec.after;
    }

    /** The parents of this job in other queues (see {@link Builder#afterIn(String, String...)}); empty when none. */
    public List<ParentRef> afterIn() {
        return spec.afterIn;
    }

    /** What a dead parent does to this job: {@link OnParentDead#DEAD} unless set. */
    public OnParentDead onParentDead() {
        return spec.onParentDead;
    }

    /** How long one run of this job may take before the worker stops it, or {@code null} for the worker's default. */
    public Duration timeout() {
        return spec.timeout;
    }

    /**
     * The producer's W3C trace context ({@code traceparent} header value) this job carries to its handler, or
     * {@code null} when none: see {@link Builder#traceContext(String, String)}.
     */
    public String traceparent() {
        return spec.traceparent;
    }

    /** The job's group key (fair turns between groups: see docs/groups.md), or {@code null} when it has none. */
    public String group() {
        return spec.group;
    }

    /** The W3C {@code tracestate} that goes with {@link #traceparent()}, or {@code null} when none. */
    public String tracestate() {
        return spec.tracestate;
    }

    /**
     * This job carrying the trace context {@code traceparent} and {@code tracestate}, checked as
     * {@link Builder#traceContext(String, String)} checks them; everything else is this job's, its id too (generated or
     * not). The tracing of the client uses it to give the jobs it enqueues its producer span's context.
     *
     * @throws IllegalArgumentException when either value is malformed, or a tracestate comes without traceparent
     */
    public Job withTraceContext(String traceparent, String tracestate) {
        Builder checked = new Builder().traceContext(traceparent, tracestate);
        Builder copy = spec.copy();
        copy.traceparent = checked.traceparent;
        copy.tracestate = checked.tracestate;
        return new Job(copy, id, idGenerated);
    }

    @Override
    public String toString() {
        Builder b = spec;
        return "Job[id=" + id + (b.name != null ? ", name=" + b.name : "") + ", payload=" + b.payload.length + " bytes, "
                + (b.runAt != null ? "runAt=" + b.runAt : "delay=" + b.delay)
                + (b.maxAttempts > 0 ? ", maxAttempts=" + b.maxAttempts : "")
                + (b.dedupeKey != null ? ", dedupeKey=" + b.dedupeKey + ", dedupeTtl=" + b.dedupeTtl : "")
                + (b.dedupeMode != DedupeMode.THROTTLE ? ", dedupeMode=" + b.dedupeMode : "") + "]";
    }

    /** Builder of a {@link Job}; {@link #build()} validates every field. */
    public static final class Builder implements Cloneable {
        private String id;
        private String name;
        private byte[] payload = new byte[0];
        private Duration delay = Duration.ZERO;
        private Instant runAt;
        private int maxAttempts;
        private String dedupeKey;
        private Duration dedupeTtl;
        private DedupeMode dedupeMode = DedupeMode.THROTTLE;
        private Duration timeout;
        private int priority;
        private String traceparent;
        private String group;
        private String tracestate;
        private List<String> after = List.of();
        private List<ParentRef> afterIn = List.of();
        private OnParentDead onParentDead = OnParentDead.DEAD;

        private Builder() {
        }

        private Builder copy() {
            try {
                return (Builder) super.clone();
            } catch (CloneNotSupportedException e) {
                throw new AssertionError(e);
            }
        }

        /**
         * A stable business id (e.g. {@code order-731:timeout}): 1-512 UTF-8 bytes, no control characters.
         * While a job with this id is scheduled, running or retained, enqueueing it again returns a duplicate.
         */
        public Builder id(String id) {
            this.id = id;
            return this;
        }

        /**
         * The job's name, i.e. its type (e.g. {@code email}, {@code sms}): 1-128 UTF-8 bytes, no control characters.
         * A worker with a handler per name ({@code handle(name, handler)}) runs it with that handler.
         */
        public Builder name(String name) {
            this.name = name;
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

        /** The payload as {@code codec} encodes {@code value} (e.g. JSON). */
        public <T> Builder payload(T value, PayloadCodec<T> codec) {
            java.util.Objects.requireNonNull(codec, "codec");
            return payload(codec.encode(value));
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
         * A dedupe key (1-512 UTF-8 bytes): enqueueing any job with the same key in this queue returns a duplicate
         * naming the first job while the key holds. It holds while its job is scheduled or running; after the job
         * ends (done or dead), until enqueue time + {@code ttl} (1 ms to 10 years) if that is later; cancelling or
         * deleting the job releases it at once. In {@link DedupeMode#DEBOUNCE debounce} mode ({@link #dedupeMode})
         * a later enqueue replaces the key's scheduled job instead, and {@code ttl} may be {@code null}.
         */
        public Builder dedupe(String key, Duration ttl) {
            this.dedupeKey = key;
            this.dedupeTtl = ttl;
            return this;
        }

        /**
         * What an enqueue of this job does when its dedupe key is held ({@link DedupeMode}): {@link DedupeMode#THROTTLE}
         * (the default: it is a duplicate) or {@link DedupeMode#DEBOUNCE} (it replaces the key's job while that job is
         * scheduled and has not started). A mode other than throttle needs a dedupe key ({@link #dedupe}).
         *
         * @throws IllegalArgumentException when {@code mode} is null
         */
        public Builder dedupeMode(DedupeMode mode) {
            if (mode == null) {
                throw new IllegalArgumentException("dedupe mode must not be null (allowed: THROTTLE, DEBOUNCE)");
            }
            this.dedupeMode = mode;
            return this;
        }

        /**
         * How long one run may take (1 ms to 1 day, {@link Bounds#MAX_JOB_TIMEOUT}, the bound of the worker's too),
         * overriding the worker's {@code jobTimeout}: at the deadline the worker interrupts the handler and the attempt
         * fails with error "timed out after &lt;timeout&gt;" (retried as any failure).
         */
        public Builder timeout(Duration timeout) {
            this.timeout = timeout;
            return this;
        }

        /**
         * The job's priority, 0 (default) to 9: among the queue's jobs that are due, a higher priority is claimed first;
         * within one priority, due time then enqueue order. A job that is not due yet never runs early for its priority.
         */
        public Builder priority(int priority) {
            this.priority = priority;
            return this;
        }

        /**
         * The W3C trace context of the code that enqueues the job (the values of the {@code traceparent} and
         * {@code tracestate} headers), kept with the job and handed to every attempt ({@link JobContext#traceparent()}),
         * so that a trace runs from the enqueue to the handler (see docs/tracing.md). With OpenTelemetry configured on
         * the client the enqueue sets it from its own span; set here, it is kept as given. {@code traceparent}:
         * {@code 00-<32 hex trace id>-<16 hex span id>-<2 hex flags>} (lower case, ids not all zero), or {@code null}
         * to carry none; {@code tracestate}: at most 512 characters of printable ASCII, or {@code null}.
         *
         * @throws IllegalArgumentException when either value is malformed, or a tracestate comes without traceparent
         */
        public Builder traceContext(String traceparent, String tracestate) {
            if (traceparent == null && tracestate != null) {
                throw new IllegalArgumentException("tracestate is set without a traceparent: a W3C tracestate only goes"
                        + " with the traceparent it belongs to");
            }
            this.traceparent = traceparent == null ? null : Validation.traceparent(traceparent);
            this.tracestate = tracestate == null || tracestate.isEmpty() ? null : Validation.tracestate(tracestate);
            return this;
        }

        /**
         * Parents: jobs of the same queue (at most {@value Bounds#MAX_PARENTS}, each existing when this one is
         * enqueued) that must all finish before this job is due. Until then it waits (state {@link JobState#WAITING});
         * the last parent's completion releases it in the same atomic step, and its own delay or run-at time then
         * counts from that release (an absolute time already past is kept as is). A done parent counts at once; a dead,
         * cancelled or deleted one as {@link #onParentDead(OnParentDead)} says. On a partitioned queue use {@link #afterIn} (see
         * docs/flows.md).
         */
        public Builder after(String... parents) {
            this.after = List.of(parents);
            return this;
        }

        /** {@link #after(String...)} from a collection. */
        public Builder after(java.util.Collection<String> parents) {
            this.after = List.copyOf(parents);
            return this;
        }

        /** Parents in another queue, or partition of a queue, counted as {@link #after(String...)}'s: docs/flows.md. */
        public Builder afterIn(String queue, String... ids) {
            this.afterIn = java.util.stream.Stream.concat(afterIn.stream(),
                    java.util.Arrays.stream(ids).map(id -> new ParentRef(queue, id))).toList();
            return this;
        }

        /** What a dead, cancelled or deleted parent does to this job (default {@link OnParentDead#DEAD}). */
        public Builder onParentDead(OnParentDead policy) {
            this.onParentDead = java.util.Objects.requireNonNull(policy, "onParentDead");
            return this;
        }

        /**
         * The job's group, e.g. a tenant id: due jobs of a queue are claimed one per group per turn (round-robin), so a
         * group with a large backlog never holds back a group with a few due jobs for more than one turn per other
         * group; within a group, priority, then due time, then enqueue order (docs/groups.md).
         *
         * @param group 1-128 characters: letters, digits and {@code . _ - : @ / + =}; {@code null}: no group
         */
        public Builder group(String group) {
            this.group = group;
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
            if (name != null) {
                Validation.jobName(name);
            }
            if (runAt != null) {
                Validation.instant("run-at instant", runAt);
            } else {
                Validation.delay("delay", delay);
            }
            Validation.range("priority", priority, 0, 9);
            if (timeout != null) {
                Validation.jobTimeout("job timeout", timeout);
            }
            boolean debounce = dedupeMode == DedupeMode.DEBOUNCE;
            JobOptionChecks.dedupe(dedupeKey, dedupeTtl, debounce, Bounds.MAX_DEDUPE_TTL);
            JobOptionChecks.parents(after, afterIn, id, Bounds.MAX_PARENTS, onParentDead != OnParentDead.DEAD);
            Validation.optionalGroup(group);
            JobOptionChecks.debounceParents(debounce, !after.isEmpty() || !afterIn.isEmpty());
            return new Job(this, id != null ? id : Ids.generate(), id == null);
        }
    }
}
