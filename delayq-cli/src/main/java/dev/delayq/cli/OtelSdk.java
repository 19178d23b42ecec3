package dev.delayq.cli;

import dev.delayq.DelayQ;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The OpenTelemetry SDK of {@code enqueue} and {@code work}, configured by autoconfiguration from the standard
 * {@code OTEL_*} variables (exporter, endpoint, service name, sampler, ...). Only traces by default: metrics and logs
 * exporters are off unless {@code OTEL_METRICS_EXPORTER}/{@code OTEL_LOGS_EXPORTER} ask for them, and the service is
 * {@code delayq} unless {@code OTEL_SERVICE_NAME} or {@code OTEL_RESOURCE_ATTRIBUTES} names it. Reached only through
 * {@link CliTracing}, when tracing is on.
 */
final class OtelSdk {
    private static final W3CTraceContextPropagator W3C = W3CTraceContextPropagator.getInstance();
    private static final TextMapGetter<Map<String, String>> GETTER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    private final OpenTelemetrySdk sdk;

    private OtelSdk(OpenTelemetrySdk sdk) {
        this.sdk = sdk;
    }

    /** The SDK configured from {@code env}'s {@code OTEL_*} variables (which override the defaults above). */
    static OtelSdk start(Map<String, String> env) {
        Map<String, String> given = new HashMap<>();
        env.forEach((k, v) -> {
            if (k.startsWith("OTEL_")) {
                given.put(k.toLowerCase(Locale.ROOT).replace('_', '.'), v); // the variable's property name
            }
        });
        OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder()
                .addPropertiesSupplier(() -> Map.of("otel.metrics.exporter", "none", "otel.logs.exporter", "none",
                        "otel.service.name", "delayq"))
                .addPropertiesCustomizer(config -> given) // the command's environment (a test's, in-process)
                .disableShutdownHook() // closed by the command, on its normal end and on a signal alike
                .build().getOpenTelemetrySdk();
        return new OtelSdk(sdk);
    }

    DelayQ.Builder apply(DelayQ.Builder b) {
        return b.openTelemetry(sdk);
    }

    /** Makes the context {@code traceparent}/{@code tracestate} current until closed. */
    CliTracing.Current current(String traceparent, String tracestate) {
        Map<String, String> carrier = new HashMap<>();
        carrier.put("traceparent", traceparent);
        if (tracestate != null) {
            carrier.put("tracestate", tracestate);
        }
        return W3C.extract(Context.root(), carrier, GETTER).makeCurrent()::close;
    }

    /** The current span's W3C context as {@code [traceparent, tracestate]} (tracestate possibly null), or null. */
    String[] current() {
        Map<String, String> carrier = new HashMap<>();
        W3C.inject(Context.current(), carrier, Map::put);
        String tp = carrier.get("traceparent");
        return tp == null ? null : new String[] {tp, carrier.get("tracestate")};
    }

    /** Exports what is buffered and shuts down, waiting at most 10 s (an unreachable collector). */
    void close() {
        sdk.shutdown().join(10, TimeUnit.SECONDS);
    }
}
