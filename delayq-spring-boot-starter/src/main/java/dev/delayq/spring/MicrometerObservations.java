package dev.delayq.spring;

import dev.delayq.EnqueueResult;
import dev.delayq.Job;
import dev.delayq.JobContext;
import dev.delayq.JobHandler;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.observation.transport.SenderContext;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Micrometer Observations of enqueues and handler runs, so that Boot's tracing (Micrometer Tracing with the
 * OpenTelemetry or Brave bridge) makes spans of them with no code of the application, and Boot's metrics timers.
 *
 * <ul>
 *   <li>{@code delayq.enqueue} (span "send QUEUE", kind PRODUCER): the propagator writes the current trace context
 *       into the job ({@code traceparent}, {@code tracestate}: W3C propagation, Boot's default) unless the job
 *       carries one already;</li>
 *   <li>{@code delayq.process} (span "process QUEUE", kind CONSUMER), one per attempt: the propagator reads the job's
 *       {@code traceparent}/{@code tracestate}, so the run's span is a child of the enqueue's, in its trace (the
 *       parent rather than only a link: the run is what the enqueue asked for, and one trace from the HTTP request to
 *       the handler is what an operator looks for; a job enqueued outside any trace starts a trace of its own).</li>
 * </ul>
 *
 * <p>Low-cardinality key values (span attributes and metric tags): {@code messaging.system} = {@code delayq},
 * {@code queue}, {@code outcome} ({@code created}, {@code duplicate} or {@code error} for an enqueue; {@code success}
 * or {@code failure} for a run). High-cardinality (span attributes only): {@code messaging.message.id} (the job's id)
 * and, for a run, {@code delayq.attempt}. {@code management.observations.enable.delayq=false} turns them off.
 */
final class MicrometerObservations implements DelayqObservations {
    static final String TRACEPARENT = "traceparent";
    static final String TRACESTATE = "tracestate";

    private final ObservationRegistry registry;

    MicrometerObservations(ObservationRegistry registry) {
        this.registry = registry;
    }

    @Override
    public EnqueueResult enqueue(String queue, Job job, Function<Job, EnqueueResult> sink) {
        EnqueueContext context = new EnqueueContext(queue, job);
        Observation observation = Observation.createNotStarted(null, EnqueueConvention.INSTANCE, () -> context, registry)
                .start();
        try (Observation.Scope scope = observation.openScope()) {
            EnqueueResult result = sink.apply(traced(job, context.getCarrier()));
            context.outcome = result.created() ? "created" : "duplicate";
            return result;
        } catch (RuntimeException e) {
            context.outcome = "error";
            observation.error(e);
            throw e;
        } finally {
            observation.stop();
        }
    }

    /** {@code job} with the trace context the propagator wrote, unless it has one or none was written. */
    static Job traced(Job job, Map<String, String> carrier) {
        String traceparent = carrier.get(TRACEPARENT);
        if (job.traceparent() != null || traceparent == null) {
            return job;
        }
        try {
            return job.withTraceContext(traceparent, carrier.get(TRACESTATE));
        } catch (IllegalArgumentException e) {
            try {
                return job.withTraceContext(traceparent, null); // a tracestate past the job's bound: the parent alone
            } catch (IllegalArgumentException again) {
                return job; // not a W3C traceparent (another propagation format): the job goes without
            }
        }
    }

    @Override
    public JobHandler handler(String queue, JobHandler handler) {
        return job -> {
            ProcessContext context = new ProcessContext(queue, job);
            Observation observation = Observation.createNotStarted(null, ProcessConvention.INSTANCE, () -> context, registry)
                    .start();
            try (Observation.Scope scope = observation.openScope()) {
                handler.handle(job);
                context.outcome = "success";
            } catch (Exception | Error e) {
                context.outcome = "failure";
                observation.error(e);
                throw e;
            } finally {
                observation.stop();
            }
        };
    }

    /** An enqueue: the carrier is the trace context headers the job is to carry. */
    static final class EnqueueContext extends SenderContext<Map<String, String>> {
        final String queue;
        final String jobId;
        String outcome = "error";

        EnqueueContext(String queue, Job job) {
            super((carrier, key, value) -> {
                if (carrier != null) {
                    carrier.put(key, value);
                }
            }, Kind.PRODUCER);
            this.queue = queue;
            this.jobId = job.id();
            setCarrier(new HashMap<>());
            setRemoteServiceName("delayq");
        }
    }

    /** A run of a job: the carrier is its {@link JobContext}, which holds the producer's trace context. */
    static final class ProcessContext extends ReceiverContext<JobContext> {
        final String queue;
        String outcome = "failure";

        ProcessContext(String queue, JobContext job) {
            super((carrier, key) -> switch (key) {
                case TRACEPARENT -> carrier.traceparent();
                case TRACESTATE -> carrier.tracestate();
                default -> null;
            }, Kind.CONSUMER);
            this.queue = queue;
            setCarrier(job);
            setRemoteServiceName("delayq");
        }
    }

    /** The names and key values of {@code delayq.enqueue}. */
    static final class EnqueueConvention implements ObservationConvention<EnqueueContext> {
        static final EnqueueConvention INSTANCE = new EnqueueConvention();

        @Override
        public String getName() {
            return "delayq.enqueue";
        }

        @Override
        public String getContextualName(EnqueueContext context) {
            return "send " + context.queue;
        }

        @Override
        public KeyValues getLowCardinalityKeyValues(EnqueueContext context) {
            return KeyValues.of("messaging.system", "delayq", "queue", context.queue, "outcome", context.outcome);
        }

        @Override
        public KeyValues getHighCardinalityKeyValues(EnqueueContext context) {
            return KeyValues.of("messaging.message.id", context.jobId);
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return context instanceof EnqueueContext;
        }
    }

    /** The names and key values of {@code delayq.process}. */
    static final class ProcessConvention implements ObservationConvention<ProcessContext> {
        static final ProcessConvention INSTANCE = new ProcessConvention();

        @Override
        public String getName() {
            return "delayq.process";
        }

        @Override
        public String getContextualName(ProcessContext context) {
            return "process " + context.queue;
        }

        @Override
        public KeyValues getLowCardinalityKeyValues(ProcessContext context) {
            return KeyValues.of("messaging.system", "delayq", "queue", context.queue, "outcome", context.outcome);
        }

        @Override
        public KeyValues getHighCardinalityKeyValues(ProcessContext context) {
            return KeyValues.of("messaging.message.id", context.getCarrier().id(),
                    "delayq.attempt", String.valueOf(context.getCarrier().attempt()));
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return context instanceof ProcessContext;
        }
    }
}
