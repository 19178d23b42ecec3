package dev.delayq.cli;

import dev.delayq.DelayQ;
import dev.delayq.JobContext;
import dev.delayq.internal.base.Validation;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Tracing for {@code enqueue} and {@code work}: on when any {@code OTEL_*} environment variable is set, and then
 * {@link OtelSdk} (the one class of the command line that uses OpenTelemetry) configures the SDK from them; off
 * otherwise, loading no OpenTelemetry class, so the commands start as fast as without it. The W3C context travels in
 * {@code TRACEPARENT}/{@code TRACESTATE} environment variables: {@code enqueue} takes its parent from them, and
 * {@code work --exec} hands each command the context of its attempt (docs/tracing.md).
 */
final class CliTracing implements AutoCloseable {
    static final String TRACEPARENT = "TRACEPARENT";
    static final String TRACESTATE = "TRACESTATE";
    /** No SDK: jobs carry the TRACEPARENT given (enqueue) or their own context (work --exec) as they are. */
    static final CliTracing OFF = new CliTracing(null);

    private final OtelSdk sdk;
    private final AtomicBoolean closed = new AtomicBoolean();

    private CliTracing(OtelSdk sdk) {
        this.sdk = sdk;
    }

    /** Whether the environment asks for tracing: any variable named {@code OTEL_*}. */
    static boolean requested(Map<String, String> env) {
        for (String k : env.keySet()) {
            if (k.startsWith("OTEL_")) {
                return true;
            }
        }
        return false;
    }

    /** Tracing as {@code env} asks: the SDK configured from its {@code OTEL_*} variables, else {@link #OFF}. */
    static CliTracing of(Map<String, String> env) {
        return requested(env) ? new CliTracing(OtelSdk.start(env)) : OFF;
    }

    boolean on() {
        return sdk != null;
    }

    /** The client builder, given the SDK when tracing is on. */
    DelayQ.Builder apply(DelayQ.Builder b) {
        return sdk == null ? b : sdk.apply(b);
    }

    /**
     * The context in {@code TRACEPARENT} and {@code TRACESTATE} ({@code [traceparent, tracestate]}, the latter
     * possibly null), or null when {@code TRACEPARENT} is unset or empty.
     *
     * @throws IllegalArgumentException naming the variable, when a value is not W3C Trace Context
     */
    static String[] parent(Map<String, String> env) {
        String tp = env.get(TRACEPARENT);
        String ts = env.get(TRACESTATE);
        if (tp == null || tp.isBlank()) {
            return null;
        }
        try {
            Validation.traceparent(tp.strip());
            if (ts != null && !ts.isBlank()) {
                Validation.tracestate(ts.strip());
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("$" + TRACEPARENT + "/$" + TRACESTATE + ": " + e.getMessage());
        }
        return new String[] {tp.strip(), ts == null || ts.isBlank() ? null : ts.strip()};
    }

    /**
     * Makes {@code parent} ({@link #parent(Map)}) the current context until closed, so that the enqueue's span is its
     * child; nothing when tracing is off or there is no parent.
     */
    Current current(String[] parent) {
        return sdk == null || parent == null ? () -> { } : sdk.current(parent[0], parent[1]);
    }

    /** A job without a context of its own carrying {@code parent} as it is (tracing off: no span to put between). */
    dev.delayq.Job carry(dev.delayq.Job job, String[] parent) {
        return sdk != null || parent == null || job.traceparent() != null ? job : job.withTraceContext(parent[0], parent[1]);
    }

    /** A context made current, until closed. */
    interface Current extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Sets {@code TRACEPARENT} (and {@code TRACESTATE}) in a job command's environment: the attempt's span when tracing
     * is on (the command continues the trace under it), else the context the job carries as it is; neither when the job
     * has none. Variables the worker itself inherited are never passed on: they name another trace.
     */
    void environment(Map<String, String> env, JobContext job) {
        env.remove(TRACEPARENT);
        env.remove(TRACESTATE);
        String[] ctx = sdk != null ? sdk.current() : null;
        if (ctx == null && job.traceparent() != null) {
            ctx = new String[] {job.traceparent(), job.tracestate()};
        }
        if (ctx != null) {
            env.put(TRACEPARENT, ctx[0]);
            if (ctx[1] != null) {
                env.put(TRACESTATE, ctx[1]);
            }
        }
    }

    /** Flushes the spans still buffered and shuts the SDK down; once (the normal end and a signal may both ask). */
    @Override
    public void close() {
        if (sdk != null && closed.compareAndSet(false, true)) {
            sdk.close();
        }
    }
}
