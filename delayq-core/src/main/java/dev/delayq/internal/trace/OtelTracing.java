package dev.delayq.internal.trace;

import dev.delayq.Job;
import dev.delayq.JobContext;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Spans with OpenTelemetry, after its messaging semantic conventions: a PRODUCER span {@code send <queue>} per enqueue
 * call, whose W3C context the jobs carry, and a CONSUMER span {@code process <queue>} per attempt, a child of the
 * context its job carries and linked to it (docs/tracing.md says why both). The job's context is read and written as
 * W3C Trace Context whatever propagators the application configured: it is what the job record stores.
 */
public final class OtelTracing implements JobTracing {
    private static final Logger LOG = LoggerFactory.getLogger(OtelTracing.class);
    static final String SCOPE = "dev.delayq";
    static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
    static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
    static final AttributeKey<String> OPERATION_TYPE = AttributeKey.stringKey("messaging.operation.type");
    static final AttributeKey<String> OPERATION_NAME = AttributeKey.stringKey("messaging.operation.name");
    static final AttributeKey<Long> BATCH_COUNT = AttributeKey.longKey("messaging.batch.message_count");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("delayq.attempt");
    static final AttributeKey<String> JOB_NAME = AttributeKey.stringKey("delayq.job.name");
    private static final String TRACEPARENT = "traceparent";
    private static final String TRACESTATE = "tracestate";
    private static final W3CTraceContextPropagator W3C = W3CTraceContextPropagator.getInstance();

    private final Tracer tracer;

    private OtelTracing(Tracer tracer) {
        this.tracer = tracer;
    }

    /** Tracing with {@code otel}'s tracer provider. */
    public static JobTracing of(OpenTelemetry otel) {
        Objects.requireNonNull(otel, "openTelemetry");
        return new OtelTracing(otel.getTracer(SCOPE));
    }

    @Override
    public <T> CompletableFuture<T> send(String queue, List<Job> jobs, Function<List<Job>, CompletableFuture<T>> send) {
        SpanBuilder b = tracer.spanBuilder("send " + queue).setSpanKind(SpanKind.PRODUCER).setAttribute(SYSTEM, "delayq")
                .setAttribute(DESTINATION, queue).setAttribute(OPERATION_TYPE, "send").setAttribute(OPERATION_NAME, "send");
        if (jobs != null && jobs.size() == 1 && jobs.get(0) != null) {
            b.setAttribute(MESSAGE_ID, jobs.get(0).id());
        } else if (jobs != null) {
            b.setAttribute(BATCH_COUNT, (long) jobs.size());
        }
        Span span = b.startSpan();
        CompletableFuture<T> sent;
        try (Scope ignored = span.makeCurrent()) {
            sent = send.apply(carrying(span, jobs));
        } catch (RuntimeException | Error e) {
            failed(span, e);
            span.end();
            throw e;
        }
        return sent.whenComplete((r, e) -> {
            if (e != null) {
                failed(span, e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
            }
            span.end();
        });
    }

    /** The jobs, those without a context of their own carrying the span's (none when the span's is invalid: no-op SDK). */
    private static List<Job> carrying(Span span, List<Job> jobs) {
        Map<String, String> carrier = new HashMap<>(4);
        W3C.inject(Context.root().with(span), carrier, Map::put);
        String tp = carrier.get(TRACEPARENT);
        if (tp == null || jobs == null) {
            return jobs;
        }
        String ts = carrier.get(TRACESTATE);
        List<Job> out = new ArrayList<>(jobs.size());
        for (Job j : jobs) {
            out.add(j == null || j.traceparent() != null ? j : j.withTraceContext(tp, ts));
        }
        return out;
    }

    @Override
    public Attempt attempt(String queue, JobContext job) {
        try {
            Context parent = Context.root(); // no context: the attempt starts a trace of its own (a schedule's tick)
            SpanContext producer = null;
            if (job.traceparent() != null) {
                Map<String, String> carrier = new HashMap<>(4);
                carrier.put(TRACEPARENT, job.traceparent());
                if (job.tracestate() != null) {
                    carrier.put(TRACESTATE, job.tracestate());
                }
                Context extracted = W3C.extract(Context.root(), carrier, MapGetter.INSTANCE);
                SpanContext sc = Span.fromContext(extracted).getSpanContext();
                if (sc.isValid()) {
                    parent = extracted;
                    producer = sc;
                }
            }
            SpanBuilder b = tracer.spanBuilder("process " + queue).setSpanKind(SpanKind.CONSUMER).setParent(parent)
                    .setAttribute(SYSTEM, "delayq").setAttribute(DESTINATION, queue).setAttribute(MESSAGE_ID, job.id())
                    .setAttribute(OPERATION_TYPE, "process").setAttribute(OPERATION_NAME, "process")
                    .setAttribute(ATTEMPT, (long) job.attempt());
            if (job.name() != null) {
                b.setAttribute(JOB_NAME, job.name());
            }
            if (producer != null) {
                b.addLink(producer);
            }
            Span span = b.startSpan();
            Scope scope = span.makeCurrent();
            return (error, thrown) -> {
                try {
                    if (error != null) {
                        span.setStatus(StatusCode.ERROR, firstLine(error));
                        span.setAttribute(ERROR_TYPE, thrown != null ? thrown.getClass().getName() : "_OTHER");
                        if (thrown != null) {
                            span.recordException(thrown);
                        }
                    }
                } finally {
                    scope.close();
                    span.end();
                }
            };
        } catch (RuntimeException e) { // the application's SDK never fails a job
            LOG.warn("cannot start the span of {} in queue {}", job.id(), queue, e);
            return Attempt.NONE;
        }
    }

    private static void failed(Span span, Throwable e) {
        span.setStatus(StatusCode.ERROR, String.valueOf(e.getMessage()));
        span.setAttribute(ERROR_TYPE, e.getClass().getName());
        span.recordException(e);
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    /** Reads the job's two W3C fields. */
    private enum MapGetter implements TextMapGetter<Map<String, String>> {
        INSTANCE;

        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    }
}
