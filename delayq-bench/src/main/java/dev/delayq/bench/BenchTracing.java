package dev.delayq.bench;

import dev.delayq.DelayQ;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.util.Collection;

/**
 * {@code bench --trace}: every client of the run traces with one OpenTelemetry SDK that samples every span and hands
 * them, through the batch span processor an application would use, to an exporter that drops them: the cost of
 * tracing in the client and the worker, without a collector's. (With no span processor at all the SDK makes no spans,
 * so that would measure nothing.) Loaded only with {@code --trace}.
 */
final class BenchTracing {
    private static OpenTelemetrySdk sdk;

    private BenchTracing() {
    }

    static synchronized DelayQ.Builder apply(DelayQ.Builder b) {
        if (sdk == null) {
            sdk = OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder().setSampler(Sampler.alwaysOn())
                    .addSpanProcessor(BatchSpanProcessor.builder(new Discard()).build()).build()).build();
        }
        return b.openTelemetry(sdk);
    }

    static synchronized void close() {
        if (sdk != null) {
            sdk.close();
            sdk = null;
        }
    }

    /** Exports nothing, at once. */
    private static final class Discard implements SpanExporter {
        @Override
        public CompletableResultCode export(Collection<SpanData> spans) {
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode flush() {
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode shutdown() {
            return CompletableResultCode.ofSuccess();
        }
    }
}
