package dev.delayq.docs;

import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobQueue;
import dev.delayq.Worker;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;

/** docs/tracing.md and docs/jobs.md: traces from the enqueue to the handler. */
final class Tracing {
    private Tracing() {
    }

    static void configure(OpenTelemetry openTelemetry) {
        // tag::configure[]
        DelayQ dq = DelayQ.builder()
                .redis("redis://localhost:6379")
                .openTelemetry(openTelemetry)                // the application's SDK (or GlobalOpenTelemetry.get())
                .build();
        JobQueue orders = dq.queue("orders");
        orders.enqueue(Job.of("731"));                       // a PRODUCER span "send orders", child of the current span

        Tracer tracer = openTelemetry.getTracer("shop");
        Worker.builder(orders, job -> {                      // each attempt runs in a CONSUMER span "process orders"
            Span charge = tracer.spanBuilder("charge").startSpan(); // ... and the handler's spans nest in it
            charge.end();
        }).build().start();
        // end::configure[]
    }

    static void carry(JobQueue orders, String traceparent, String tracestate) {
        // tag::carry[]
        orders.enqueue(Job.builder().payload("731")
                .traceContext(traceparent, tracestate)   // "00-<32 hex>-<16 hex>-<2 hex>"; tracestate null or up to 512 chars
                .build());
        // end::carry[]
    }
}
