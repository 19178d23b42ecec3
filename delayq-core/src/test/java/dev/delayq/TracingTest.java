package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.delayq.testkit.RedisExtension;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Tracing with OpenTelemetry (DelayQ.Builder#openTelemetry), read back from the SDK's in-memory exporter: the enqueue's
 * PRODUCER span and each attempt's CONSUMER span share the trace (the attempt a child of the producer and linked to
 * it), with the messaging attributes; a failed attempt records its exception; a job without a context (enqueued
 * untraced, or a schedule's tick) starts a trace of its own.
 */
class TracingTest {
    private static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
    private static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    private static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
    private static final AttributeKey<String> OPERATION = AttributeKey.stringKey("messaging.operation.type");
    private static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("delayq.attempt");
    private static final AttributeKey<String> JOB_NAME = AttributeKey.stringKey("delayq.job.name");
    private static final Duration WAIT = Duration.ofSeconds(15);

    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private OpenTelemetrySdk otel;
    private TestSupport t;
    private DelayQ traced;
    private JobQueue q;

    @BeforeEach
    void open() {
        otel = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
                .build();
        t = new TestSupport(Target.of(REDIS.server()), REDIS.prefix());
        traced = t.client(b -> b.openTelemetry(otel));
        q = t.queue(traced, "tr");
    }

    @AfterEach
    void close() {
        t.close();
        otel.close();
    }

    private SpanData awaitSpan(String what, Predicate<SpanData> p) {
        return await(what).atMost(WAIT).until(() -> spans.getFinishedSpanItems().stream().filter(p).findFirst().orElse(null),
                s -> s != null);
    }

    private static Predicate<SpanData> process(String id, long attempt) {
        return s -> s.getKind() == SpanKind.CONSUMER && id.equals(s.getAttributes().get(MESSAGE_ID))
                && Long.valueOf(attempt).equals(s.getAttributes().get(ATTEMPT));
    }

    @Test
    void theAttemptIsAChildOfTheEnqueueAndTheHandlersSpansNestInIt() {
        Tracer handlerTracer = otel.getTracer("handler");
        try (Worker w = Worker.builder(q, ctx -> handlerTracer.spanBuilder("handler-work").startSpan().end()).build().start()) {
            Span request = otel.getTracer("app").spanBuilder("HTTP POST /orders").startSpan();
            try (var scope = request.makeCurrent()) {
                q.enqueue(Job.builder().id("o-1").name("mail").payload("1").build());
            } finally {
                request.end();
            }
            SpanData consumer = awaitSpan("the attempt's span", process("o-1", 1));
            SpanData producer = awaitSpan("the enqueue's span", s -> s.getKind() == SpanKind.PRODUCER);
            SpanData work = awaitSpan("the handler's own span", s -> s.getName().equals("handler-work"));

            assertThat(producer.getName()).isEqualTo("send tr");
            assertThat(producer.getParentSpanId()).as("the enqueue is a child of the request").isEqualTo(request.getSpanContext().getSpanId());
            assertThat(producer.getAttributes().get(SYSTEM)).isEqualTo("delayq");
            assertThat(producer.getAttributes().get(DESTINATION)).isEqualTo("tr");
            assertThat(producer.getAttributes().get(OPERATION)).isEqualTo("send");
            assertThat(producer.getAttributes().get(MESSAGE_ID)).isEqualTo("o-1");

            assertThat(consumer.getName()).isEqualTo("process tr");
            assertThat(consumer.getTraceId()).isEqualTo(producer.getTraceId()).isEqualTo(request.getSpanContext().getTraceId());
            assertThat(consumer.getParentSpanId()).isEqualTo(producer.getSpanId());
            assertThat(consumer.getLinks()).singleElement().satisfies(l -> assertThat(l.getSpanContext().getSpanId())
                    .isEqualTo(producer.getSpanId()));
            assertThat(consumer.getAttributes().get(SYSTEM)).isEqualTo("delayq");
            assertThat(consumer.getAttributes().get(DESTINATION)).isEqualTo("tr");
            assertThat(consumer.getAttributes().get(OPERATION)).isEqualTo("process");
            assertThat(consumer.getAttributes().get(JOB_NAME)).isEqualTo("mail");
            assertThat(consumer.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);

            assertThat(work.getParentSpanId()).as("the handler's span nests in the attempt's").isEqualTo(consumer.getSpanId());
            assertThat(work.getTraceId()).isEqualTo(producer.getTraceId());
            assertThat(q.get("o-1").orElseThrow().traceparent()).as("the job carries the enqueue's context")
                    .startsWith("00-" + producer.getTraceId() + "-" + producer.getSpanId() + "-");
        }
    }

    @Test
    void aFailedAttemptRecordsItsExceptionAndTheRetryIsAttemptTwoOfTheSameTrace() {
        RetryPolicy fast = RetryPolicy.builder().maxAttempts(3).base(Duration.ofMillis(10)).cap(Duration.ofMillis(20)).build();
        try (Worker w = Worker.builder(q, ctx -> {
            if (ctx.attempt() == 1) {
                throw new IllegalStateException("payment service down");
            }
        }).retryPolicy(fast).build().start()) {
            q.enqueue(Job.builder().id("p-1").payload("1").build());
            SpanData first = awaitSpan("attempt 1", process("p-1", 1));
            SpanData second = awaitSpan("attempt 2", process("p-1", 2));
            SpanData producer = awaitSpan("the enqueue's span", s -> s.getKind() == SpanKind.PRODUCER);

            assertThat(first.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
            assertThat(first.getStatus().getDescription()).contains("payment service down");
            assertThat(first.getEvents()).extracting(EventData::getName).contains("exception");
            assertThat(first.getEvents().stream().filter(e -> e.getName().equals("exception")).findFirst().orElseThrow()
                    .getAttributes().get(AttributeKey.stringKey("exception.type"))).isEqualTo(IllegalStateException.class.getName());
            assertThat(first.getAttributes().get(AttributeKey.stringKey("error.type"))).isEqualTo(IllegalStateException.class.getName());

            assertThat(second.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
            assertThat(second.getTraceId()).isEqualTo(first.getTraceId()).isEqualTo(producer.getTraceId());
            assertThat(second.getParentSpanId()).as("every attempt is a child of the enqueue").isEqualTo(producer.getSpanId());
        }
    }

    @Test
    void aJobWithoutContextStartsATraceAndAnExplicitContextIsKept() {
        DelayQ untraced = t.client();
        try (Worker w = Worker.builder(q, ctx -> { }).build().start()) {
            untraced.queue("tr").enqueue(Job.builder().id("bare").build());
            String given = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
            q.enqueue(Job.builder().id("given").traceContext(given, "k=v").build());

            SpanData bare = awaitSpan("the untraced job's attempt", process("bare", 1));
            assertThat(bare.getParentSpanContext().isValid()).as("a root span").isFalse();
            assertThat(bare.getLinks()).isEmpty();

            SpanData kept = awaitSpan("the attempt of the job with its own context", process("given", 1));
            assertThat(q.get("given").orElseThrow().traceparent()).isEqualTo(given);
            assertThat(kept.getTraceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
            assertThat(kept.getParentSpanId()).isEqualTo("00f067aa0ba902b7");
            assertThat(kept.getParentSpanContext().getTraceState().get("k")).isEqualTo("v");
        }
    }

    @Test
    void aSchedulesTickStartsATraceOfItsOwn() {
        try (Worker w = Worker.builder(q, ctx -> { }).build().start()) {
            q.schedules().upsert(Schedule.every("tick", Duration.ofSeconds(1)));
            SpanData tick = awaitSpan("a tick's attempt", s -> s.getKind() == SpanKind.CONSUMER);
            assertThat(tick.getParentSpanContext().isValid()).as("a root span").isFalse();
            assertThat(tick.getLinks()).isEmpty();
            assertThat(spans.getFinishedSpanItems()).noneMatch(s -> s.getKind() == SpanKind.PRODUCER);
        }
    }

    @Test
    void aBatchIsOneProducerSpanWhoseContextEveryJobCarries() {
        q.enqueueAll(List.of(Job.of("a"), Job.of("b"), Job.of("c")));
        SpanData producer = awaitSpan("the batch's span", s -> s.getKind() == SpanKind.PRODUCER);
        assertThat(producer.getAttributes().get(AttributeKey.longKey("messaging.batch.message_count"))).isEqualTo(3L);
        assertThat(q.inspector().list(JobState.SCHEDULED, 0, 10)).hasSize(3)
                .allSatisfy(j -> assertThat(j.traceparent()).contains(producer.getSpanId()));
    }
}
